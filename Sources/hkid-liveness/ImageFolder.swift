import ArgumentParser
import Foundation
import HKIDLiveness
import HKIDMedia

/// Writes result stills into `--images DIR`. Each file is written to a
/// temporary name and renamed, so a reader never sees a partial JPEG.
struct ImageFolder {
    let path: String
    /// Prefix for batch runs, so stills of different videos do not collide.
    var prefix = ""

    static func checkWritable(_ path: String) throws {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw ValidationError("--images \(path): is a file, not a folder") }
        } else {
            do {
                try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            } catch {
                throw ValidationError("--images \(path): cannot create the folder")
            }
        }
        guard FileManager.default.isWritableFile(atPath: path) else {
            throw ValidationError("--images \(path): the folder is not writable")
        }
    }

    /// File names follow SPEC section 6: `first-card.jpg` for result 1,
    /// `card.jpg` and `head.jpg` for success, `overtime-card.jpg` for result 4.
    func store(_ result: LivenessResult) throws -> [StillKind: String] {
        var paths: [StillKind: String] = [:]
        for image in result.images {
            let stem = switch result.code {
            case .success: ""
            case .first: "first-"
            default: "\(result.message)-"
            }
            let file = (path as NSString).appendingPathComponent("\(prefix)\(stem)\(image.kind.rawValue).jpg")
            try DurableFile.write(image.data, to: file)
            paths[image.kind] = file
        }
        return paths
    }
}
