import Testing
import Foundation
import AppleReceipts
import AttestTestSupport
import AttestCore
import AttestGuardWire

/// All 21 real receipts verify at their instants with the fields Apple wrote, and tampering is caught.
struct RealReceiptTests {
    let verifier = ReceiptVerifier()

    @Test(arguments: AppleFixtures.receiptVectors)
    func realReceiptVerifiesWithItsFields(vector: ManifestVector) async throws {
        let expectation = ReceiptExpectation(appId: vector.appId, publicKeyX963: Array(vector.publicKey.x963Representation))
        let receipt = try await verifier.verify(AppleFixtures.object(vector.objectPath), expecting: expectation, at: vector.verifyInstant).get()
        #expect(receipt.type.rawValue == vector.type)
        #expect(receipt.environment == vector.environmentField7)
        #expect(receipt.creationTime == AppleFixtures.instant(vector.creationTime!))
        #expect(receipt.expirationTime == vector.expirationTime.map(AppleFixtures.instant))
        #expect(receipt.notBefore == vector.notBefore.map(AppleFixtures.instant))
        #expect(receipt.riskMetric == vector.riskMetric)
        #expect(receipt.token == vector.tokenField5)
        #expect(receipt.appId == vector.appId)
    }

    @Test func realDevice2024ReceiptVerifies() async throws {
        let expectation = ReceiptExpectation(
            appId: RealDevice2024.app.appId,
            publicKeyX963: Array(RealDevice2024.publicKey.x963Representation),
            type: .attest,
            attestClientHash: Hex.decode("3c2ce702add6f1ceff354f511ae19a64bb1856aeeb90c784b992dad04948670d")
        )
        let receipt = try await verifier.verify(RealDevice2024.receipt, expecting: expectation, at: RealDevice2024.verifyAt).get()
        #expect(receipt.type == .attest)
        #expect(receipt.environment == "sandbox")
        #expect(receipt.riskMetric == nil)
    }

    @Test func refreshedReceiptsCarryTheSameTokenAsTheirAttestReceipt() async throws {
        let device = AppleFixtures.receiptVectors.filter { $0.device == "ios-14.2" }
        #expect(device.count == 5)
        #expect(Set(device.map(\.tokenField5)).count == 1)
    }

    @Test func anotherAppIdIsAppIdMismatch() async {
        let expectation = ReceiptExpectation(appId: "AAAAAAAAAA.org.reactjs.native.example.RNClientAttest")
        let verdict = await verifier.verify(RealDevice2024.receipt, expecting: expectation, at: RealDevice2024.verifyAt)
        #expect(verdict.error?.code == .appIdMismatch)
    }

    @Test func anotherKeyIsPublicKeyMismatch() async {
        let other = AppleFixtures.publicKey("real-devices-dev-2020/ios-14.2/public_key.pem")
        let expectation = ReceiptExpectation(appId: RealDevice2024.app.appId, publicKeyX963: Array(other.x963Representation))
        let verdict = await verifier.verify(RealDevice2024.receipt, expecting: expectation, at: RealDevice2024.verifyAt)
        #expect(verdict.error?.code == .publicKeyMismatch)
    }

    @Test func aTamperedPayloadByteIsSignatureInvalid() async throws {
        var receipt = RealDevice2024.receipt
        // Inside the first content chunk: the App ID's last character.
        let appIdBytes = Array(RealDevice2024.app.appId.utf8)
        let start = try #require(receipt.firstRange(of: appIdBytes))
        receipt[start.upperBound - 1] ^= 0x01
        let tamperedAppId = RealDevice2024.app.appId.dropLast() + String(UnicodeScalar(appIdBytes.last! ^ 0x01))
        let verdict = await verifier.verify(receipt, expecting: ReceiptExpectation(appId: String(tamperedAppId)), at: RealDevice2024.verifyAt)
        #expect(verdict.error?.code == .signatureInvalid)
    }

    @Test func verifyingAfterTheSignerExpiredIsChainInvalid() async {
        let verdict = await verifier.verify(
            RealDevice2024.receipt, expecting: ReceiptExpectation(appId: RealDevice2024.app.appId), at: AppleFixtures.instant("2024-05-01T00:00:00Z"))
        #expect(verdict.error?.code == .chainInvalid)
    }

    @Test func aForeignRootIsChainInvalid() async {
        let foreign = ReceiptVerifier(trustRoots: [AppleFixturesRoots.appAttestRoot])
        let verdict = await foreign.verify(RealDevice2024.receipt, expecting: ReceiptExpectation(appId: RealDevice2024.app.appId), at: RealDevice2024.verifyAt)
        #expect(verdict.error?.code == .chainInvalid)
    }

    @Test func aCreationTimeBeyondTheSkewIsCreatedInFuture() async {
        // Created 2024-01-27T16:15:33.169Z; ten minutes earlier exceeds the 120 s tolerance.
        let verdict = await verifier.verify(
            RealDevice2024.receipt, expecting: ReceiptExpectation(appId: RealDevice2024.app.appId), at: AppleFixtures.instant("2024-01-27T16:05:33Z"))
        #expect(verdict.error?.code == .createdInFuture)
    }

    @Test func aRefreshSixtySecondsAheadOfTheClockIsWithinTheSkew() async throws {
        // ios-14.2 receipt 2 was created 60.5 s after the instant it is verified at.
        let vector = try #require(AppleFixtures.receiptVectors.first { $0.vector == "ios-14.2/receipt_2_receipt.der" })
        let strict = ReceiptVerifier(clockSkewTolerance: 30)
        let verdict = await strict.verify(AppleFixtures.object(vector.objectPath), expecting: ReceiptExpectation(appId: vector.appId), at: vector.verifyInstant)
        #expect(verdict.error?.code == .createdInFuture)
    }

    @Test func aMaximumAgeRejectsAnOldReceipt() async {
        let expectation = ReceiptExpectation(appId: RealDevice2024.app.appId, maximumAge: 300)
        let late = AppleFixtures.instant("2024-01-27T16:30:00Z")
        let verdict = await verifier.verify(RealDevice2024.receipt, expecting: expectation, at: late)
        #expect(verdict.error?.code == .tooOld)
        let fresh = await verifier.verify(RealDevice2024.receipt, expecting: expectation, at: RealDevice2024.verifyAt)
        #expect(fresh.receipt != nil)
    }

    @Test func anExpectedTypeIsEnforced() async {
        let expectation = ReceiptExpectation(appId: RealDevice2024.app.appId, type: .receipt)
        let verdict = await verifier.verify(RealDevice2024.receipt, expecting: expectation, at: RealDevice2024.verifyAt)
        #expect(verdict.error?.code == .typeMismatch)
    }

    @Test func anotherClientHashOnAnAttestReceiptIsClientHashMismatch() async {
        let expectation = ReceiptExpectation(appId: RealDevice2024.app.appId, attestClientHash: [UInt8](repeating: 7, count: 32))
        let verdict = await verifier.verify(RealDevice2024.receipt, expecting: expectation, at: RealDevice2024.verifyAt)
        #expect(verdict.error?.code == .clientHashMismatch)
    }

    @Test func garbageIsMalformedReceipt() async {
        let verdict = await verifier.verify([0x30, 0x80, 0x01], expecting: ReceiptExpectation(appId: "A.b"), at: RealDevice2024.verifyAt)
        #expect(verdict.error?.code == .malformedReceipt)
    }
}

/// Receipt timestamps parse with any number of fractional digits and format as Apple writes them.
struct ReceiptTimestampTests {
    @Test(arguments: [
        ("2024-01-27T16:15:33.169Z", 1_706_372_133.169),
        ("2020-11-22T09:48:12.863000Z", 1_606_038_492.863),
        ("2020-11-27T22:41:40.46Z", 1_606_516_900.46),
        ("2024-01-27T16:15:40Z", 1_706_372_140),
        ("2000-02-29T00:00:00Z", 951_782_400),
        ("1969-12-31T23:59:59.5Z", -0.5),
    ])
    func parses(text: String, seconds: Double) throws {
        let date = try #require(RFC3339.parse(text))
        #expect(abs(date.timeIntervalSince1970 - seconds) < 0.0005)
    }

    @Test(arguments: ["", "2024-01-27", "2024-01-27T16:15:40", "2023-02-29T00:00:00Z",
                      "2024-13-01T00:00:00Z", "2024-01-27T24:00:00Z", "2024-01-27T16:15:40.Z", "2024-01-27T16:15:4aZ", "２０２４-01-27T16:15:40Z"])
    func rejects(text: String) {
        #expect(RFC3339.parse(text) == nil)
    }

    @Test(arguments: ["2244-02-25T22:41:40.460Z", "2024-01-27T16:15:33.169Z", "9999-12-31T23:59:59.999Z", "1970-01-01T00:00:00.001Z"])
    func millisecondTextFormatsBackToItself(text: String) throws {
        // Found by the FuzzTextFormats fuzzer: flooring turned 40.460 (stored as 40.4599...) into 40.459.
        #expect(RFC3339.format(try #require(RFC3339.parse(text))) == text)
    }

    @Test func formatsMillisecondsAndClampsAbsurdInstants() {
        #expect(RFC3339.format(Date(timeIntervalSince1970: 1_706_372_133.169)) == "2024-01-27T16:15:33.169Z")
        #expect(RFC3339.format(Date(timeIntervalSince1970: -0.5)) == "1969-12-31T23:59:59.500Z")
        #expect(RFC3339.format(.distantFuture) == "4001-01-01T00:00:00.000Z")
        #expect(RFC3339.format(Date(timeIntervalSince1970: 1e300)).hasPrefix("9999-12-31"))
        #expect(RFC3339.format(Date(timeIntervalSince1970: -1e300)).hasPrefix("0000-01-01"))
    }
}
