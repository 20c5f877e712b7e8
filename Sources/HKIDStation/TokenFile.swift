import Foundation

/// The bearer token file (docs/station.md).
public enum TokenFile {
    /// Reads the token file: one line, surrounding whitespace ignored, at least 16 characters.
    public static func read(at path: String) throws(StationError) -> String {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw StationError(.configuration, "\(path): the token file cannot be read")
        }
        let token = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard token.count >= 16, !token.contains(where: \.isWhitespace) else {
            throw StationError(.configuration, "\(path): the token must be one word of at least 16 characters")
        }
        return token
    }
}
