import Foundation
import HKIDSignature

/// The station's files. Every path is built here, from the configured root
/// and a validated `SessionID`, so no request data ever becomes a path.
///
/// ```
/// <root>/                    0700
///   station.sqlite           the session index
///   keys/station.key         Ed25519 private key, 0600 (when not configured elsewhere)
///   keys/station.pub         its public key
///   sessions/<id>/           0700, one per session; files 0600
///     video.mkv  events.jsonl  first-card.jpg  card.jpg  head.jpg
///     manifest.json  manifest.sig  bundle.zip
/// ```
public struct DataDirectory: Sendable {
    public let root: URL

    public init(root: URL) {
        self.root = root.standardizedFileURL
    }

    /// Creates the root, `keys/` and `sessions/` with mode 0700, and tightens
    /// the root's mode if it already existed.
    public func prepare() throws(StationError) {
        for url in [root, keysDirectory, sessionsDirectory] {
            do {
                try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true,
                                                        attributes: [.posixPermissions: 0o700])
                try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: url.path)
            } catch {
                throw StationError(.storage, "\(url.path): cannot create the data directory (\(error.localizedDescription))")
            }
        }
    }

    public var databasePath: String { root.appendingPathComponent("station.sqlite").path }
    public var keysDirectory: URL { root.appendingPathComponent("keys", isDirectory: true) }
    public var defaultPrivateKeyPath: String { keysDirectory.appendingPathComponent("station.key").path }
    public var defaultPublicKeyPath: String { keysDirectory.appendingPathComponent("station.pub").path }
    public var sessionsDirectory: URL { root.appendingPathComponent("sessions", isDirectory: true) }

    public func directory(for id: SessionID) -> URL {
        sessionsDirectory.appendingPathComponent(id.rawValue, isDirectory: true)
    }

    public func createDirectory(for id: SessionID) throws(StationError) {
        do {
            try FileManager.default.createDirectory(at: directory(for: id), withIntermediateDirectories: false,
                                                    attributes: [.posixPermissions: 0o700])
        } catch {
            throw StationError(.storage, "cannot create the session directory (\(error.localizedDescription))")
        }
    }

    /// Removes a session's folder and what is in it (a start that failed
    /// before the session existed). Failing to is logged by nobody: the
    /// folder then stays, empty or with an empty log, and holds nothing signed.
    public func removeDirectory(of id: SessionID) {
        do { try FileManager.default.removeItem(at: directory(for: id)) } catch {
            // Nothing more can be done about it here; see above.
        }
    }

    /// A file of a session's bundle, by its bundle name.
    public func file(_ name: String, of id: SessionID) -> String {
        directory(for: id).appendingPathComponent(name).path
    }

    /// Where a recording grows until it is finalised and renamed to `video.mkv`.
    public func recordingPath(of id: SessionID) -> String { file(".\(BundleLayout.video).recording", of: id) }
    /// Where the event log grows until the session ends.
    public func eventLogPath(of id: SessionID) -> String { file(".\(BundleLayout.events).partial", of: id) }
    public func bundlePath(of id: SessionID) -> String { file("bundle.zip", of: id) }
}
