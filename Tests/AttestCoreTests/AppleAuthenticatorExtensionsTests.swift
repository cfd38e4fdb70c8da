import Testing
import Foundation
import Crypto
import AttestCore
import AttestVocabulary
import AttestTestSupport
import DeviceSimulator

/// iOS 27's authenticator-extension map: Apple's own sample, every shape the parser accepts or refuses, and
/// assertions that carry the map under each combination of the AT and ED flags.
struct AppleAuthenticatorExtensionsTests {
    // MARK: Apple's 2026 validation-guide sample

    @Test func applesGuideSampleVerifiesWithItsExtensionMap() async throws {
        let attestation = try await AttestationVerifier().verify(
            AppleGuide2026.attestation, request: AppleGuide2026.request, at: AppleGuide2026.verifyAt
        ).get()
        #expect(attestation.environment == .production)
        #expect(attestation.certificateInformation.osVersion == "27.0")
        // Only AT: the map follows the COSE key with the extension-data flag clear.
        #expect(attestation.authenticatorData.flags == .attestedCredentialData)
        #expect(Hex.encode(attestation.credential.trailingData).hasSuffix("4401000000"))
        let extensions = try #require(attestation.credential.extensions)
        #expect(extensions.validationCategory == .platform)
        #expect(extensions.bundleVersion == "1")
        #expect(extensions.otherKeys.isEmpty)
        #expect(attestation.receipt.type == .attest)
        #expect(attestation.receipt.environment == "production")
    }

    @Test func applesGuideSampleFailsOnceItsLeafExpired() async {
        let verdict = await AttestationVerifier().verify(
            AppleGuide2026.attestation, request: AppleGuide2026.request, at: AppleFixtures.instant("2026-04-24T00:00:00Z"))
        #expect(verdict.error?.code == .chainInvalid)
    }

    @Test func theSimulatorWritesApplesKeysOrderAndTypes() async throws {
        let apple = try await AttestationVerifier().verify(
            AppleGuide2026.attestation, request: AppleGuide2026.request, at: AppleGuide2026.verifyAt
        ).get().credential.trailingData
        func shape(_ bytes: [UInt8]) throws -> [String] {
            try #require(try CBORDecoder().decode(bytes).mapEntries).map { "\($0.key.textValue ?? "?"):\($0.value.typeName):\($0.value.bytesValue?.count ?? 0)" }
        }
        #expect(try shape(AttestationOptions.appStoreBuild.cborEncoded) == shape(apple))
    }

    @Test func attestationsBeforeIOS27CarryNoMap() async throws {
        let attestation = try await AttestationVerifier().verify(
            RealDevice2024.attestation, request: RealDevice2024.request, at: RealDevice2024.verifyAt
        ).get()
        #expect(attestation.credential.extensions == nil)
    }

    // MARK: Shapes

    @Test func noBytesIsNoMap() throws {
        #expect(try AppleAuthenticatorExtensions.parse([]) == nil)
    }

    @Test func applesShapeReadsBothValues() throws {
        let bytes = Self.map([
            (.text("apple_bundle_version_01"), .text("4.2.1")),
            (.text("apple_validation_category_01"), .bytes([4, 0, 0, 0])),
        ])
        let extensions = try #require(try AppleAuthenticatorExtensions.parse(bytes[...]))
        #expect(extensions.validationCategory == .appStore)
        #expect(extensions.bundleVersion == "4.2.1")
    }

    @Test func theCategoryIsLittleEndian() throws {
        let bytes = Self.map([(.text("apple_validation_category_01"), .bytes([0x0C, 0x01, 0, 0]))])
        #expect(try AppleAuthenticatorExtensions.parse(bytes[...])?.validationCategory == .unknown(0x010C))
    }

    @Test func anUnsignedCategoryMeansTheSameNumber() throws {
        let bytes = Self.map([(.text("apple_validation_category_01"), .unsigned(2))])
        #expect(try AppleAuthenticatorExtensions.parse(bytes[...])?.validationCategory == .testFlight)
    }

    @Test func anUnknownCategoryIsKeptNotRefused() throws {
        let bytes = Self.map([(.text("apple_validation_category_01"), .bytes([11, 0, 0, 0]))])
        let category = try #require(try AppleAuthenticatorExtensions.parse(bytes[...])?.validationCategory)
        #expect(category == .unknown(11))
        #expect(category.name == "unknown(11)")
        #expect(ValidationCategory(name: "unknown(11)") == category)
    }

    @Test func otherKeysAreKeptByName() throws {
        let bytes = Self.map([
            (.text("apple_bundle_version_01"), .text("1")),
            (.text("apple_something_02"), .array([.unsigned(1)])),
        ])
        let extensions = try #require(try AppleAuthenticatorExtensions.parse(bytes[...]))
        #expect(extensions.otherKeys == ["apple_something_02"])
        #expect(extensions.validationCategory == nil)
    }

    @Test func anEmptyMapIsAMapWithNothingInIt() throws {
        #expect(try AppleAuthenticatorExtensions.parse(Self.map([])[...]) == AppleAuthenticatorExtensions())
    }

    @Test(arguments: [
        ("not CBOR", [0xFF, 0x00]),
        ("a text item", CBOREncoder.encode(.text("apple"))),
        ("an array", CBOREncoder.encode(.array([.unsigned(1)]))),
        ("bytes after the map", map([(.text("apple_bundle_version_01"), .text("1"))]) + [0x00]),
        ("two maps", map([]) + map([])),
        ("an integer key", map([(.unsigned(1), .text("1"))])),
        ("a 3-byte category", map([(.text("apple_validation_category_01"), .bytes([1, 0, 0]))])),
        ("a text category", map([(.text("apple_validation_category_01"), .text("app_store"))])),
        ("a negative category", map([(.text("apple_validation_category_01"), .negative(0))])),
        ("a 33-bit category", map([(.text("apple_validation_category_01"), .unsigned(1 << 32))])),
        ("a byte-string version", map([(.text("apple_bundle_version_01"), .bytes([0x31]))])),
        ("a 65-byte version", map([(.text("apple_bundle_version_01"), .text(String(repeating: "9", count: 65)))])),
        ("a map deeper than Apple's", map([(.text("x"), .array([.array([.array([.array([.unsigned(1)])])])]))])),
        ("a map over 1,024 bytes", map([(.text("x"), .bytes([UInt8](repeating: 7, count: 1_100)))])),
    ] as [(String, [UInt8])])
    func everyOtherShapeIsRefusedWithItsOwnCode(shape: String, bytes: [UInt8]) {
        #expect(throws: VerificationError(.malformedAuthenticatorExtensions, "")) {
            _ = try AppleAuthenticatorExtensions.parse(bytes[...])
        }
    }

    @Test func arbitraryBytesAreReadOrRefusedNeverMisread() {
        // A seeded sweep over random and mutated inputs: every one is a map, nothing, or the typed refusal.
        var generator = SplitMix64(seed: 0x2026_0427)
        let seed = Self.map([
            (.text("apple_bundle_version_01"), .text("1")),
            (.text("apple_validation_category_01"), .bytes([1, 0, 0, 0])),
        ])
        for round in 0..<20_000 {
            var bytes: [UInt8]
            if round.isMultiple(of: 2) {
                bytes = (0..<Int(generator.next() % 80)).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            } else {
                bytes = seed
                for _ in 0..<(1 + Int(generator.next() % 3)) {
                    let index = Int(generator.next() % UInt64(bytes.count))
                    bytes[index] = UInt8(truncatingIfNeeded: generator.next())
                }
            }
            do {
                _ = try AppleAuthenticatorExtensions.parse(bytes[...])
            } catch {
                #expect(error.code == .malformedAuthenticatorExtensions, "\(Hex.encode(bytes))")
            }
        }
    }

    @Test func theEncodingRoundTrips() throws {
        for category in ValidationCategory.known + [.unknown(77)] {
            let extensions = AppleAuthenticatorExtensions(validationCategory: category, bundleVersion: "27.1")
            #expect(try AppleAuthenticatorExtensions.parse(extensions.cborEncoded[...]) == extensions)
            #expect(ValidationCategory(number: category.number) == category)
            #expect(ValidationCategory(name: category.name) == category)
        }
        // A name written before a release learned to name the number keeps meaning the number.
        #expect(ValidationCategory(name: "unknown(3)") == .development)
        #expect(ValidationCategory(name: "unknown(3)")?.name == "development")
        #expect(ValidationCategory(name: "unknown(-3)") == nil && ValidationCategory(name: "unknown()") == nil)
        #expect(ValidationCategory(name: "App Store") == nil)
    }

    // MARK: Assertions

    /// Real assertions carry AT (0x40) with ED usually clear; some clients set ED; the map's presence never depends on
    /// the flags.
    @Test(arguments: [0x40, 0xC0, 0x00, 0x80] as [UInt8])
    func iOS27AssertionsVerifyUnderEveryFlagCombination(flags: UInt8) throws {
        let key = P256.Signing.PrivateKey()
        let clientData = Array("{\"challenge\":\"c\"}".utf8)
        let map = AppleAuthenticatorExtensions(validationCategory: .development, bundleVersion: "42")
        let object = SimulatedKey.assertion(
            privateKey: key, app: Self.app, clientDataHash: Array(SHA256.hash(data: clientData)), counter: 3, flags: flags,
            extensions: map)
        let verified = try AssertionVerifier().verify(
            object, publicKey: key.publicKey, app: Self.app, clientData: clientData, previousCounter: 2
        ).get()
        #expect(verified.counter == 3)
        #expect(verified.authenticatorData.flags.rawValue == flags)
        #expect(verified.extensions == map)
    }

    @Test func assertionsWithoutTheMapHaveNone() throws {
        let key = P256.Signing.PrivateKey()
        let clientData = Array("x".utf8)
        let object = SimulatedKey.assertion(privateKey: key, app: Self.app, clientData: clientData, counter: 1)
        let verified = try AssertionVerifier().verify(object, publicKey: key.publicKey, app: Self.app, clientData: clientData, previousCounter: 0).get()
        #expect(verified.extensions == nil)
    }

    @Test func aSignedMalformedMapIsRefusedAfterTheSignatureVerifies() throws {
        let key = P256.Signing.PrivateKey()
        let clientData = Array("x".utf8)
        var authenticatorData = Self.app.rpIdHash + [0x40, 0, 0, 0, 1]
        authenticatorData += Self.map([(.text("apple_validation_category_01"), .text("app_store"))])
        let nonce = Array(SHA256.hash(data: authenticatorData + Array(SHA256.hash(data: clientData))))
        let signature = Array(try key.signature(for: nonce).derRepresentation)
        let object = AssertionObject(signature: signature, authenticatorData: authenticatorData).cborEncoded
        let verdict = AssertionVerifier().verify(object, publicKey: key.publicKey, app: Self.app, clientData: clientData, previousCounter: 0)
        #expect(verdict.error?.code == .malformedAuthenticatorExtensions)
        // Another key's signature fails first: unsigned bytes are never judged.
        let other = P256.Signing.PrivateKey()
        let forged = AssertionVerifier().verify(object, publicKey: other.publicKey, app: Self.app, clientData: clientData, previousCounter: 0)
        #expect(forged.error?.code == .signatureInvalid)
    }

    @Test func simulatedAttestationsCarryTheMapTheOptionsName() async throws {
        var options = AttestationOptions()
        options.appleExtensions = AppleAuthenticatorExtensions(validationCategory: .development, bundleVersion: "7")
        let device = SimulatedDevice(pki: SimulatorFixtures.pki, identifier: "ios27-development")
        let key = device.generateKey()
        let challenge = SimulatorFixtures.challenge("ios27")
        let minted = try SimulatorFixtures.attestation(device: device, key: key, challenge: challenge, options: options)
        let attestation = try await SimulatorFixtures.verifier
            .verify(minted.object, request: SimulatorFixtures.request(key: key, challenge: challenge), at: SimulatorFixtures.now).get()
        #expect(attestation.credential.extensions == options.appleExtensions)
    }

    // MARK: Helpers

    static let app = AppIdentity(appId: "ABCDE12345.com.example.ios27")

    static func map(_ entries: [(CBOR, CBOR)]) -> [UInt8] {
        CBOREncoder.encode(.map(entries.map { CBORMapEntry(key: $0.0, value: $0.1) }))
    }
}
