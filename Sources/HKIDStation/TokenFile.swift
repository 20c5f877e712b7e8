import Foundation

/// The bearer token file (docs/station.md).
public enum TokenFile {
    /// Reads the token file: one line, surrounding whitespace ignored, at
    /// least 16 characters, mode 0600 or stricter.
    /// A token file others can read is refused, like the signing key (and
    /// like ssh refuses a readable private key): the token is the only thing
    /// between the network and the sessions.
    public static func read(at path: String) throws(StationError) -> String {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw StationError(.configuration, "\(path): the token file cannot be read")
        }
        if info.st_mode & 0o077 != 0 {
            throw StationError(.configuration,
                               "\(path): the token file is readable by others (mode \(String(info.st_mode & 0o777, radix: 8))); chmod 600 it")
        }
        let text: String
        do { text = try String(contentsOfFile: path, encoding: .utf8) } catch {
            throw StationError(.configuration, "\(path): the token file cannot be read (\(error.localizedDescription))")
        }
        let token = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard token.count >= 16, !token.contains(where: \.isWhitespace) else {
            throw StationError(.configuration, "\(path): the token must be one word of at least 16 characters")
        }
        return token
    }
}
