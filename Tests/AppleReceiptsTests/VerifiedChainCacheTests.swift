import AppleReceipts
import AttestCore
import AttestTestSupport
import Foundation
import Testing

/// The receipt verifier remembers validated signer chains; a remembered chain must answer exactly as a full
/// check would, so it is trusted only inside its certificates' validity window and never for another signature.
/// (The attestation verifier's use of the same cache is tested in `AttestationChainCacheTests`.)
struct VerifiedChainCacheTests {
    static let expectation = ReceiptExpectation(appId: RealDevice2024.app.appId)

    @Test("a chain validated once is refused again once its certificates have expired")
    func expiredChainIsRefusedAfterAHit() async {
        let verifier = ReceiptVerifier()
        #expect(await verifier.verify(RealDevice2024.receipt, expecting: Self.expectation, at: RealDevice2024.verifyAt).value != nil)
        #expect(await verifier.verify(RealDevice2024.receipt, expecting: Self.expectation, at: RealDevice2024.verifyAt).value != nil)
        let later = AppleFixtures.instant("2026-11-22T12:00:00Z")
        let expired = await verifier.verify(RealDevice2024.receipt, expecting: Self.expectation, at: later)
        #expect(expired.error?.code == .chainInvalid)
        let fresh = await ReceiptVerifier().verify(RealDevice2024.receipt, expecting: Self.expectation, at: later)
        #expect(fresh.error?.code == expired.error?.code, "the cached verifier answers as a fresh one")
    }

    @Test("a cached chain still checks each receipt's own signature")
    func signatureIsCheckedOnEveryReceipt() async throws {
        let verifier = ReceiptVerifier()
        #expect(await verifier.verify(RealDevice2024.receipt, expecting: Self.expectation, at: RealDevice2024.verifyAt).value != nil)
        var tampered = RealDevice2024.receipt
        let signature = try #require(tampered.lastIndex(where: { $0 != 0 }))
        tampered[signature] ^= 0x01
        let verdict = await verifier.verify(tampered, expecting: Self.expectation, at: RealDevice2024.verifyAt)
        #expect(verdict.error?.code == .signatureInvalid || verdict.error?.code == .malformedReceipt)
    }

    @Test("an entry holds from the latest start to the earliest end of its certificates, widened by the skew alone")
    func windowBounds() {
        let cache = VerifiedChainCache<String>(clockSkewTolerance: 120)
        let attestationRoot = AppAttestTrustAnchor.appleAppAttestationRoot  // 2020-03-18 .. 2045-03-15
        let receiptRoot = ReceiptTrustAnchor.appleRootCAG3  // 2014-04-30 .. 2039-04-30
        cache.remember([attestationRoot, receiptRoot], for: "both")
        let start = attestationRoot.notValidBefore
        let end = receiptRoot.notValidAfter
        #expect(cache.holds("both", at: start.addingTimeInterval(-120)))
        #expect(!cache.holds("both", at: start.addingTimeInterval(-121)))
        #expect(cache.holds("both", at: end.addingTimeInterval(120)))
        #expect(!cache.holds("both", at: end.addingTimeInterval(121)))
        #expect(!cache.holds("other", at: start.addingTimeInterval(86_400)))
    }

    @Test("the cache keeps at most its capacity, then starts afresh")
    func capacityIsBounded() {
        let cache = VerifiedChainCache<Int>(clockSkewTolerance: 0, capacity: 2)
        let root = ReceiptTrustAnchor.appleRootCAG3
        let instant = root.notValidBefore.addingTimeInterval(86_400)
        cache.remember([root], for: 0)
        cache.remember([root], for: 1)
        #expect(cache.holds(0, at: instant) && cache.holds(1, at: instant))
        cache.remember([root], for: 2)
        #expect(!cache.holds(0, at: instant) && !cache.holds(1, at: instant))
        #expect(cache.holds(2, at: instant))
    }

    @Test("a chain validated before its certificates start is not trusted earlier than they do")
    func notYetValidIsRefused() async {
        let verifier = ReceiptVerifier()
        #expect(await verifier.verify(RealDevice2024.receipt, expecting: Self.expectation, at: RealDevice2024.verifyAt).value != nil)
        let before = AppleFixtures.instant("2020-01-01T00:00:00Z")
        #expect(await verifier.verify(RealDevice2024.receipt, expecting: Self.expectation, at: before).error?.code == .chainInvalid)
    }
}
