import Testing
import Foundation
import Crypto
import X509
import AttestCore
import DeviceSimulator
import AttestTestSupport

/// `attestguard verify` prints one JSON verdict and exits 0 valid, 1 invalid, 2 usage error.
struct VerifyCommandTests {
    let fixtures = AppleFixtures.directory.path

    @Test(arguments: AppleFixtures.attestationVectors)
    func realAttestationsVerifyThroughTheCLI(vector: ManifestVector) async throws {
        let result = try await CommandLineRunner.run([
            "verify", "attestation", "--attestation", "\(fixtures)/real-devices-dev-2020/\(vector.device)/attestation.b64",
            "--key-id", vector.keyIdBase64!, "--app-id", vector.appId, "--environment", "development",
            "--challenge-utf8", vector.challengeUtf8!, "--at", vector.verifyAt!,
        ])
        #expect(result.status == 0, "\(result.standardOutput) \(result.standardError)")
        #expect(result.json["valid"] as? Bool == true)
        #expect(result.json["clientDataHash"] as? String == vector.clientDataHashHex)
        #expect((result.json["receipt"] as? [String: Any])?["type"] as? String == "ATTEST")
    }

    @Test func theRealDevice2024AttestationVerifiesFromRawCBORToo() async throws {
        let raw = AppleFixtures.object("real-device-dev-2024/attestation.b64")
        let path = try CommandLineRunner.temporaryFile(raw, name: "attestation.cbor")
        let result = try await CommandLineRunner.run([
            "verify", "attestation", "--attestation", path, "--key-id", "+7NWLawiwi1lyK6vxqHzUp1bXzMji/Ft89ztMqPW4H4=",
            "--app-id", RealDevice2024.app.appId, "--environment", "development",
            "--client-data-hash-hex", "3c2ce702add6f1ceff354f511ae19a64bb1856aeeb90c784b992dad04948670d",
            "--at", "2024-01-27T16:15:40Z",
        ])
        #expect(result.status == 0)
        #expect(result.json["osVersion"] as? String == "17.2.1")
        #expect((result.json["receipt"] as? [String: Any])?["environment"] as? String == "sandbox")
    }

    @Test(arguments: AppleFixtures.assertionVectors)
    func realAssertionsVerifyThroughTheCLI(vector: ManifestVector) async throws {
        let clientData = try CommandLineRunner.temporaryFile(Array(vector.clientDataUtf8!.utf8), name: "clientData")
        let result = try await CommandLineRunner.run([
            "verify", "assertion", "--assertion", "\(fixtures)/real-devices-dev-2020/\(vector.device)/assertion.cbor",
            "--public-key", "\(fixtures)/real-devices-dev-2020/\(vector.device)/public_key.pem",
            "--app-id", vector.appId, "--client-data", clientData, "--previous-counter", "0",
        ])
        #expect(result.status == 0, "\(result.standardOutput) \(result.standardError)")
        #expect(result.json["counter"] as? Int == Int(vector.expectedCounter!))
    }

    @Test func theRealDevice2024AssertionVerifiesAndReplaysFail() async throws {
        let arguments = [
            "verify", "assertion", "--assertion", "\(fixtures)/real-device-dev-2024/assertion.b64",
            "--public-key", "\(fixtures)/real-device-dev-2024/public_key.pem", "--app-id", RealDevice2024.app.appId,
            "--client-data", "\(fixtures)/real-device-dev-2024/assertion_clientData.json",
        ]
        let valid = try await CommandLineRunner.run(arguments)
        #expect(valid.status == 0)
        #expect(valid.json["clientDataHash"] as? String == "ef6c5b6fa9092de462bc53146d9e6d66a0b766e32e707ba73ced6f7bc76c49aa")
        let replay = try await CommandLineRunner.run(arguments + ["--previous-counter", "1"])
        #expect(replay.status == 1)
        #expect(replay.json["error"] as? String == "counter_not_increasing")
    }

    @Test func applesGuideSamplePrintsItsCategoryAndBundleVersion() async throws {
        let result = try await CommandLineRunner.run([
            "verify", "attestation", "--attestation", "\(fixtures)/\(AppleGuide2026.path)", "--key-id", AppleGuide2026.keyIdBase64,
            "--app-id", AppleGuide2026.app.appId, "--environment", "production", "--challenge-utf8", "example_server_challenge",
            "--challenge-hashing", "none", "--at", "2026-04-21T18:13:12Z",
        ])
        #expect(result.status == 0, "\(result.standardOutput)")
        #expect(result.json["validationCategory"] as? String == "platform")
        #expect(result.json["bundleVersion"] as? String == "1")
        #expect(result.json["osVersion"] as? String == "27.0")
        #expect((result.json["keyAccessControlPolicy"] as? String)?.hasPrefix("30430c02") == true, "\(result.standardOutput)")
    }

    @Test func anIOS27AssertionPrintsItsCategoryAndBundleVersion() async throws {
        let key = P256.Signing.PrivateKey()
        let clientData = Array("{\"challenge\":\"ios27\"}".utf8)
        let object = SimulatedKey.assertion(
            privateKey: key, app: SimulatorFixtures.app, clientDataHash: Array(SHA256.hash(data: clientData)), counter: 5,
            extensions: AppleAuthenticatorExtensions(validationCategory: .testFlight, bundleVersion: "4.2"))
        let result = try await CommandLineRunner.run([
            "verify", "assertion",
            "--assertion", try CommandLineRunner.temporaryFile(object, name: "assertion.cbor"),
            "--public-key", try CommandLineRunner.temporaryFile(Array(key.publicKey.pemRepresentation.utf8), name: "key.pem"),
            "--client-data", try CommandLineRunner.temporaryFile(clientData, name: "client-data.json"),
            "--app-id", SimulatorFixtures.app.appId,
        ])
        #expect(result.status == 0, "\(result.standardOutput)")
        #expect(result.json["validationCategory"] as? String == "test_flight")
        #expect(result.json["bundleVersion"] as? String == "4.2")
    }

    @Test(arguments: AppleFixtures.receiptVectors)
    func realReceiptsVerifyThroughTheCLI(vector: ManifestVector) async throws {
        let result = try await CommandLineRunner.run([
            "verify", "receipt", "--receipt", "\(fixtures)/real-devices-dev-2020/\(vector.vector)", "--app-id", vector.appId,
            "--public-key", "\(fixtures)/real-devices-dev-2020/\(vector.device)/public_key.pem", "--at", vector.verifyAt!,
        ])
        #expect(result.status == 0, "\(result.standardOutput) \(result.standardError)")
        let json = result.json
        #expect(json["type"] as? String == vector.type)
        #expect(json["environment"] as? String == vector.environmentField7)
        #expect(json["token"] as? String == vector.tokenField5)
        #expect(json["riskMetric"] as? Int == vector.riskMetric)
        #expect((json["notBefore"] as? String).map(AppleFixtures.instant) == vector.notBefore.map(AppleFixtures.instant))
        #expect((json["creationTime"] as? String).map(AppleFixtures.instant) == vector.creationTime.map(AppleFixtures.instant))
        #expect((json["expirationTime"] as? String).map(AppleFixtures.instant) == vector.expirationTime.map(AppleFixtures.instant))
    }

    @Test func theRealDevice2024ReceiptVerifiesAndAgesOut() async throws {
        let arguments = [
            "verify", "receipt", "--receipt", "\(fixtures)/real-device-dev-2024/receipt_attest.b64",
            "--app-id", RealDevice2024.app.appId, "--max-age", "300",
        ]
        let fresh = try await CommandLineRunner.run(arguments + ["--at", "2024-01-27T16:15:40Z"])
        #expect(fresh.status == 0)
        let old = try await CommandLineRunner.run(arguments + ["--at", "2024-01-27T17:15:40Z"])
        #expect(old.status == 1)
        #expect(old.json["error"] as? String == "receipt_too_old")
    }

    @Test(arguments: [
        ("--environment", "production", "aaguid_mismatch"),
        ("--app-id", "AAAAAAAAAA.org.reactjs.native.example.RNClientAttest", "rp_id_mismatch"),
        ("--challenge-hex", "279e86037bb94c7a8965aa1f8d7c16ef", "nonce_mismatch"),
        ("--at", "2025-06-01T00:00:00Z", "chain_invalid"),
    ])
    func realNegativesReportTheirCode(option: String, value: String, code: String) async throws {
        var arguments = [
            "verify", "attestation", "--attestation", "\(fixtures)/real-device-dev-2024/attestation.b64",
            "--key-id", "+7NWLawiwi1lyK6vxqHzUp1bXzMji/Ft89ztMqPW4H4=", "--app-id", RealDevice2024.app.appId,
            "--environment", "development", "--challenge-hex", "279e86037bb94c7a8965aa1f8d7c16ee", "--at", "2024-01-27T16:15:40Z",
        ]
        let index = try #require(arguments.firstIndex(of: option))
        arguments[index + 1] = value
        let result = try await CommandLineRunner.run(arguments)
        #expect(result.status == 1)
        #expect(result.json["valid"] as? Bool == false)
        #expect(result.json["error"] as? String == code)
        #expect(!(result.json["detail"] as? String ?? "").isEmpty)
    }

    @Test func simulatorObjectsVerifyWithTheirRoots() async throws {
        let pki = SimulatorFixtures.pki
        let device = SimulatedDevice(pki: pki, identifier: "cli", environment: .production)
        let key = device.generateKey()
        let challenge = Array("cli-challenge".utf8)
        let minted = try device.attest(key, app: SimulatorFixtures.app, clientDataHash: Array(SHA256.hash(data: challenge)), at: SimulatorFixtures.now)
        let object = try CommandLineRunner.temporaryFile(Array(Data(minted.object).base64EncodedString().utf8), name: "attestation.b64")
        let root = try CommandLineRunner.temporaryFile(Array(try pki.attestationRoot.certificate.serializeAsPEM().pemString.utf8), name: "root.pem")
        let receiptRoot = try CommandLineRunner.temporaryFile(Array(try pki.receiptRoot.certificate.serializeAsPEM().pemString.utf8), name: "receipt-root.pem")
        let arguments = [
            "verify", "attestation", "--attestation", object, "--key-id", key.keyIdBase64, "--app-id", SimulatorFixtures.app.appId,
            "--environment", "production", "--challenge-utf8", "cli-challenge", "--at", "2026-11-22T12:00:00Z",
        ]
        let trusted = try await CommandLineRunner.run(arguments + ["--root", root, "--receipt-root", receiptRoot])
        #expect(trusted.status == 0, "\(trusted.standardOutput)")
        #expect(trusted.json["trailingData"] != nil)
        let untrusted = try await CommandLineRunner.run(arguments)
        #expect(untrusted.status == 1)
        #expect(untrusted.json["error"] as? String == "chain_invalid")
    }

    @Test func usageErrorsExitTwo() async throws {
        let missingFile = try await CommandLineRunner.run(["verify", "receipt", "--receipt", "/nonexistent/receipt", "--app-id", "A.b"])
        #expect(missingFile.status == 2)
        #expect(missingFile.standardError.contains("cannot read receipt file"))
        let badEnvironment = try await CommandLineRunner.run([
            "verify", "attestation", "--attestation", "x", "--key-id", "AA==", "--app-id", "A.b", "--environment", "staging", "--challenge-hex", "00",
        ])
        #expect(badEnvironment.status == 2)
        let twoChallenges = try await CommandLineRunner.run([
            "verify", "attestation", "--attestation", "x", "--key-id", "AA==", "--app-id", "A.b", "--environment", "production",
            "--challenge-hex", "00", "--challenge-utf8", "x",
        ])
        #expect(twoChallenges.status == 2)
        let badTime = try await CommandLineRunner.run(["verify", "receipt", "--receipt", "\(fixtures)/real-device-dev-2024/receipt_attest.b64", "--app-id", "A.b", "--at", "yesterday"])
        #expect(badTime.status == 2)
        let help = try await CommandLineRunner.run(["verify", "--help"])
        #expect(help.status == 0)
    }

    @Test func garbageObjectsAreInvalidNotCrashes() async throws {
        let garbage = try CommandLineRunner.temporaryFile([0xA1, 0x63, 0x66, 0x6D, 0x74, 0xFF, 0x00], name: "garbage")
        let result = try await CommandLineRunner.run([
            "verify", "attestation", "--attestation", garbage, "--key-id", "+7NWLawiwi1lyK6vxqHzUp1bXzMji/Ft89ztMqPW4H4=",
            "--app-id", "A.b", "--environment", "production", "--challenge-hex", "00",
        ])
        #expect(result.status == 1)
        #expect(result.json["error"] as? String == "malformed_cbor")
    }
}
