import AttestGuardEngine
import Crypto
import Foundation

extension SessionTokenKeys {
    /// Reads `sessionTokens.*`: the signing key (`signingKeyFile` or `signingKeyEnv`, a PEM P-256 private key, never
    /// inline) and the earlier keys that still verify (`verifyingKeyFiles`, PEM public or private keys). `nil` when no
    /// signing key is configured.
    static func reading(_ values: ConfigValues, environment: [String: String]) throws -> SessionTokenKeys? {
        let verifyingFiles = values.stringArray("verifyingKeyFiles")
        guard let pem = try values.secret("signingKey", environment: environment) else {
            if !verifyingFiles.isEmpty {
                try values.report(ConfigurationError(key: values.path("verifyingKeyFiles"), "verifying keys need a signing key (signingKeyFile or signingKeyEnv)"))
            }
            return nil
        }
        guard let signing = try? P256.Signing.PrivateKey(pemRepresentation: Self.pem(pem)) else {
            throw ConfigurationError(key: values.path("signingKeyFile"), "the signing key is not a PEM P-256 private key (openssl ecparam -name prime256v1 -genkey | openssl pkcs8 -topk8 -nocrypt)")
        }
        var verifying: [P256.Signing.PublicKey] = []
        for file in verifyingFiles {
            guard let contents = FileManager.default.contents(atPath: file), let text = String(data: contents, encoding: .utf8) else {
                throw ConfigurationError(key: values.path("verifyingKeyFiles"), "cannot read \(file)", code: .unreadableFile)
            }
            let pem = Self.pem(text)
            if let key = try? P256.Signing.PublicKey(pemRepresentation: pem) {
                verifying.append(key)
            } else if let key = try? P256.Signing.PrivateKey(pemRepresentation: pem) {
                verifying.append(key.publicKey)
            } else {
                throw ConfigurationError(key: values.path("verifyingKeyFiles"), "\(file) is not a PEM P-256 public or private key")
            }
        }
        return SessionTokenKeys(signing: signing, verifying: verifying)
    }

    /// PEM text as a variable may carry it (a literal `\n` for each line break), trimmed.
    private static func pem(_ text: String) -> String {
        text.replacingOccurrences(of: "\\n", with: "\n").trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
