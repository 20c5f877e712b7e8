import Crypto
import Foundation
import HKIDMedia
import HKIDSignature
import Logging

/// The station's signing key: the configured file, or one made on first
/// start. The private key is written 0600 and never logged; only its key id
/// and the public key leave this type.
public enum StationKeys {
    public static func loadOrCreate(configuredPath: String?, directory: DataDirectory,
                                    logger: Logger) throws(StationError) -> ManifestSigner {
        let path = configuredPath ?? directory.defaultPrivateKeyPath
        if FileManager.default.fileExists(atPath: path) {
            try checkPermissions(path)
            do {
                let signer = ManifestSigner(privateKey: try KeyFile.readPrivateKey(at: path))
                logger.info("signing key loaded", metadata: ["keyId": "\(signer.keyId)"])
                return signer
            } catch {
                throw StationError(.configuration, error.description)
            }
        }
        guard configuredPath == nil else {
            throw StationError(.configuration, "\(path): the configured signing key does not exist")
        }
        let key = Curve25519.Signing.PrivateKey()
        do {
            try DurableFile.write(Data(KeyFile.pem(privateKey: key).utf8), to: path, mode: 0o600)
            try DurableFile.write(Data(KeyFile.pem(publicKey: key.publicKey).utf8), to: directory.defaultPublicKeyPath,
                                  mode: 0o644)
        } catch {
            throw StationError(.storage, "cannot write the new signing key (\(error))")
        }
        let signer = ManifestSigner(privateKey: key)
        logger.notice("created a new signing key", metadata: ["keyId": "\(signer.keyId)",
                                                             "publicKey": "\(directory.defaultPublicKeyPath)"])
        return signer
    }

    /// A private key others can read is refused, like ssh does.
    private static func checkPermissions(_ path: String) throws(StationError) {
        var info = stat()
        guard stat(path, &info) == 0 else { throw StationError(.configuration, "\(path): cannot be read") }
        if info.st_mode & 0o077 != 0 {
            throw StationError(.configuration,
                               "\(path): the private key is readable by others (mode \(String(info.st_mode & 0o777, radix: 8))); chmod 600 it")
        }
    }
}
