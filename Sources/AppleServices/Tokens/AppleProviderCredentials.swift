public import Foundation
import JWTKit

/// The identity AttestGuard presents to Apple's App Attest and DeviceCheck servers: the Team ID, the
/// 10-character id of a .p8 key with DeviceCheck enabled, and that key.
///
/// The key is parsed when the credentials are made, so a bad key fails at start-up rather than on the
/// first redemption. ``description`` and ``debugDescription`` redact it; it is never logged.
public struct AppleProviderCredentials: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The Apple Developer Team ID, the JWT `iss` claim.
    public let teamId: String
    /// The 10-character key id, the JWT `kid` header.
    public let keyId: String
    /// The parsed P-256 private key.
    let privateKey: ES256PrivateKey

    /// Creates credentials from the .p8 file's text.
    /// - Parameters:
    ///   - teamId: The Team ID (ASCII letters and digits).
    ///   - keyId: The key id (10 ASCII letters and digits).
    ///   - privateKeyPEM: The .p8 text (`-----BEGIN PRIVATE KEY-----`, PKCS #8); a literal `\n` (as some
    ///     environment files write newlines) is read as a newline.
    /// - Throws: ``ProviderCredentialsError``.
    public init(teamId: String, keyId: String, privateKeyPEM: String) throws {
        guard !teamId.isEmpty, teamId.count <= 64, teamId.allSatisfy(Self.isAlphanumeric) else {
            throw ProviderCredentialsError(.invalidTeamId, "team id must be ASCII letters and digits")
        }
        guard keyId.count == 10, keyId.allSatisfy(Self.isAlphanumeric) else {
            throw ProviderCredentialsError(.invalidKeyId, "key id must be 10 ASCII letters and digits")
        }
        let pem = privateKeyPEM.replacingOccurrences(of: "\\n", with: "\n").trimmingCharacters(in: .whitespacesAndNewlines)
        do {
            self.privateKey = try ES256PrivateKey(pem: pem)
        } catch {
            throw ProviderCredentialsError(.invalidPrivateKey, "the key is not a PEM PKCS #8 P-256 private key")
        }
        self.teamId = teamId
        self.keyId = keyId
    }

    /// Loads the key from a .p8 file.
    /// - Throws: ``ProviderCredentialsError`` (`provider_key_file_unreadable` when the file cannot be read).
    public static func load(teamId: String, keyId: String, privateKeyFile path: String) throws -> AppleProviderCredentials {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw ProviderCredentialsError(.keyFileUnreadable, "cannot read the key file at \(path)")
        }
        return try AppleProviderCredentials(teamId: teamId, keyId: keyId, privateKeyPEM: text)
    }

    /// Loads the key from an environment variable that holds the .p8 text.
    /// - Parameters:
    ///   - variable: The variable's name, e.g. `ATTESTGUARD_APPLE_KEY`.
    ///   - environment: The environment to read (the process's by default).
    /// - Throws: ``ProviderCredentialsError`` (`provider_key_variable_missing` when unset or empty).
    public static func load(
        teamId: String,
        keyId: String,
        environmentVariable variable: String,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> AppleProviderCredentials {
        guard let text = environment[variable], !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw ProviderCredentialsError(.environmentVariableMissing, "environment variable \(variable) is unset or empty")
        }
        return try AppleProviderCredentials(teamId: teamId, keyId: keyId, privateKeyPEM: text)
    }

    /// The public half of the key in PEM, for configuring a fake Apple that checks this key's tokens.
    public var publicKeyPEM: String { privateKey.publicKey.pemRepresentation }

    public var description: String { "AppleProviderCredentials(teamId: \(teamId), keyId: \(keyId), key: <redacted>)" }
    public var debugDescription: String { description }

    private static func isAlphanumeric(_ character: Character) -> Bool {
        character.isASCII && (character.isLetter || character.isNumber)
    }
}
