import AppleServices
import Crypto
import Foundation
import Testing

struct AppleProviderCredentialsTests {
    let pem = P256.Signing.PrivateKey().pemRepresentation

    @Test func testAcceptsSwiftCryptoPEMAndRedactsIt() throws {
        let credentials = try AppleProviderCredentials(teamId: "ABCDE12345", keyId: "KEY1234567", privateKeyPEM: pem)
        #expect(credentials.teamId == "ABCDE12345")
        #expect(credentials.keyId == "KEY1234567")
        #expect(credentials.description.contains("<redacted>"))
        #expect(!credentials.description.contains("PRIVATE"))
        #expect(!String(reflecting: credentials).contains("PRIVATE"))
        #expect(credentials.publicKeyPEM.contains("BEGIN PUBLIC KEY"))
    }

    @Test func testRejectsBadKeyIdTeamIdAndKey() {
        #expect(throws: ProviderCredentialsError.self) {
            try AppleProviderCredentials(teamId: "ABCDE12345", keyId: "SHORT", privateKeyPEM: pem)
        }
        do {
            _ = try AppleProviderCredentials(teamId: "ABCDE12345", keyId: "KEY1234567", privateKeyPEM: "not a key")
            Issue.record("a bad key was accepted")
        } catch let error as ProviderCredentialsError {
            #expect(error.code == .invalidPrivateKey)
            #expect(!error.description.contains("not a key"))
        } catch {
            Issue.record("unexpected \(error)")
        }
        #expect(code { try AppleProviderCredentials(teamId: "", keyId: "KEY1234567", privateKeyPEM: pem) } == .invalidTeamId)
        #expect(code { try AppleProviderCredentials(teamId: "ABC DE", keyId: "KEY1234567", privateKeyPEM: pem) } == .invalidTeamId)
        #expect(code { try AppleProviderCredentials(teamId: "ABCDE12345", keyId: "KEY-234567", privateKeyPEM: pem) } == .invalidKeyId)
    }

    @Test func testLoadsFromEnvironmentWithEscapedNewlines() throws {
        let escaped = pem.replacingOccurrences(of: "\n", with: "\\n")
        let credentials = try AppleProviderCredentials.load(
            teamId: "ABCDE12345",
            keyId: "KEY1234567",
            environmentVariable: "APPLE_KEY",
            environment: ["APPLE_KEY": escaped]
        )
        #expect(credentials.keyId == "KEY1234567")
        #expect(
            code {
                try AppleProviderCredentials.load(teamId: "ABCDE12345", keyId: "KEY1234567", environmentVariable: "APPLE_KEY", environment: [:])
            } == .environmentVariableMissing
        )
    }

    @Test func testLoadsFromFile() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("AuthKey_\(UUID().uuidString).p8").path
        try pem.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let credentials = try AppleProviderCredentials.load(teamId: "ABCDE12345", keyId: "KEY1234567", privateKeyFile: path)
        #expect(credentials.teamId == "ABCDE12345")
        #expect(
            code {
                try AppleProviderCredentials.load(teamId: "ABCDE12345", keyId: "KEY1234567", privateKeyFile: path + ".missing")
            } == .keyFileUnreadable
        )
    }

    private func code(_ body: () throws -> AppleProviderCredentials) -> ProviderCredentialsError.Code? {
        do {
            _ = try body()
            return nil
        } catch {
            return (error as? ProviderCredentialsError)?.code
        }
    }
}
