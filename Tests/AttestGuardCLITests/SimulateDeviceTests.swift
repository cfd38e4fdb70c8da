import AttestCore
import Foundation
import Testing

/// `attestguard simulate device` mints bodies a live simulator-mode server accepts: an attestation for a challenge,
/// then assertions whose counter the state file carries from one call to the next.
@Suite("attestguard simulate device", .serialized)
struct SimulateDeviceTests {
    static let appId = "ABCDE12345.com.example.attestguard"

    @Test("attest, then two assertions: the server registers the key and accepts each once")
    func attestThenAssert() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("attestguard-simulate-device-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = try await ServerProcess(environment: ServerProcess.environment(databaseURL: nil, sqlitePath: folder.appendingPathComponent("store.sqlite").path))
        defer { _ = server.stop() }
        let state = folder.appendingPathComponent("device.json").path

        let challenge = try await server.challenge(purpose: "attestation", userId: "shell-user")
        let attest = try await CommandLineRunner.run([
            "simulate", "device", "attest", "--state", state, "--challenge", challenge, "--app-id", Self.appId,
            "--user-id", "shell-user", "--seed", "attestguard-tests", "--ip", "203.0.113.5",
        ])
        #expect(attest.status == 0, "\(attest.standardError)")
        let registered = try await server.send("POST", "v1/attestations", body: Data(attest.standardOutput.utf8))
        #expect(registered.status == 201, "\(registered.json)")
        let permissions = try FileManager.default.attributesOfItem(atPath: state)[.posixPermissions] as? Int
        #expect(permissions == 0o600, "the state file holds a private key")
        let keyId = try #require(attest.json["keyId"] as? String)
        #expect(attest.json["ip"] as? String == "203.0.113.5")

        var bodies: [Data] = []
        for expectedCounter in 1...2 {
            let assertionChallenge = try await server.challenge(purpose: "assertion", userId: "shell-user", keyId: keyId)
            let assert = try await CommandLineRunner.run([
                "simulate", "device", "assert", "--state", state, "--challenge", assertionChallenge,
                "--method", "POST", "--path", "/api/claim", "--body", #"{"promo":"spring"}"#, "--action", "claim_promo",
            ])
            #expect(assert.status == 0, "\(assert.standardError)")
            let body = Data(assert.standardOutput.utf8)
            bodies.append(body)
            let accepted = try await server.send("POST", "v1/assertions", body: body)
            #expect(accepted.status == 200, "\(accepted.json)")
            #expect(accepted.json["counter"] as? Int == expectedCounter)
        }
        let replayed = try await server.send("POST", "v1/assertions", body: bodies[0])
        #expect(replayed.status == 409)
        #expect(replayed.errorCode == "assertion_already_accepted")
    }

    @Test("a challenge that starts with \"-\" (one in 64 the server issues) is read as the challenge, not a flag")
    func challengeStartingWithADash() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("attestguard-simulate-dash-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let state = folder.appendingPathComponent("device.json").path
        let challenge = "-" + String(repeating: "A", count: 42)  // base64url of 0xF8 and 31 zero bytes

        let attest = try await CommandLineRunner.run([
            "simulate", "device", "attest", "--state", state, "--challenge", challenge, "--app-id", Self.appId, "--user-id", "u",
        ])
        #expect(attest.status == 0, "\(attest.standardError)")
        #expect(attest.json["challenge"] as? String == challenge)
        let assert = try await CommandLineRunner.run([
            "simulate", "device", "assert", "--state", state, "--challenge", challenge, "--body", "-1",
        ])
        #expect(assert.status == 0, "\(assert.standardError)")
        let clientData = try #require(Base64Text.decodeURL(assert.json["clientData"] as? String ?? ""))
        let signed = try #require(try JSONSerialization.jsonObject(with: clientData) as? [String: Any])
        #expect(signed["challenge"] as? String == challenge)
    }

    @Test("a missing state file or a malformed challenge is refused with a message, nothing printed")
    func refusals() async throws {
        let missing = try await CommandLineRunner.run([
            "simulate", "device", "assert", "--state", "/nonexistent/device.json", "--challenge", String(repeating: "A", count: 43),
        ])
        #expect(missing.status != 0)
        #expect(missing.standardOutput.isEmpty)
        #expect(missing.standardError.contains("simulate device attest"), "\(missing.standardError)")
        let malformed = try await CommandLineRunner.run([
            "simulate", "device", "attest", "--state", "/tmp/unused.json", "--challenge", "not-a-challenge", "--app-id", Self.appId, "--user-id", "u",
        ])
        #expect(malformed.status != 0)
        #expect(malformed.standardOutput.isEmpty)
    }
}
