import AttestVocabulary
import Foundation
@testable import AttestGuardStore
import Testing

/// A batch folds repeated label identities as the stores' unique keys do: by bytes, never by canonical equivalence.
struct LabelIdentityTests {
    static func label(source: String, subject: String = "k1") -> FraudLabelRecord {
        FraudLabelRecord(appId: "A.app", kind: .key, subject: subject, source: source, label: .fraud, labelledAt: Date(timeIntervalSince1970: 0))
    }

    @Test("an NFD source and its NFC twin are two labels; the same bytes twice are one")
    func foldsByBytes() {
        let composed = "caf\u{E9}", decomposed = "cafe\u{301}"
        #expect(composed == decomposed, "Swift's == folds them")
        let (folded, positions) = FraudLabelRecord.folded([Self.label(source: composed), Self.label(source: decomposed), Self.label(source: composed)])
        #expect(folded.count == 2 && positions == [0, 1, 0])
        #expect(Set([Self.label(source: composed).identity, Self.label(source: decomposed).identity]).count == 2)
        #expect(FraudLabelRecord.folded([Self.label(source: "s", subject: "Ω"), Self.label(source: "s", subject: "\u{2126}")]).labels.count == 2)
    }
}
