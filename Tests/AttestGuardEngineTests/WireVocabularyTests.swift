import AttestGuardEngine
import AttestGuardWire
import AttestVocabulary
import Foundation
import Testing

/// The wire module's words for the vocabulary's (Foundation-only, for the app) are the same words.
struct WireVocabularyTests {
    @Test func challengePurposesAreTheSameWords() {
        #expect(WireChallengePurpose.allCases.map(\.rawValue).sorted() == ChallengePurpose.allCases.map(\.rawValue).sorted())
        for purpose in ChallengePurpose.allCases {
            #expect(purpose.wire.rawValue == purpose.rawValue)
            #expect(ChallengePurpose(purpose.wire) == purpose)
        }
    }

    @Test func deviceCheckSubjectKindsAreTheSameWords() {
        #expect(DeviceCheckSubjectBody.Kind.allCases.map(\.rawValue).sorted() == DeviceCheckSubject.Kind.allCases.map(\.rawValue).sorted())
        for kind in DeviceCheckSubject.Kind.allCases {
            let subject = DeviceCheckSubject(kind: kind, value: "id-1")
            #expect(subject.body.kind.rawValue == kind.rawValue && subject.body.id == "id-1")
            #expect(DeviceCheckSubject(subject.body) == subject)
        }
    }

    @Test("an asserted request's address is checked as request.ip")
    func assertedRequestAddress() throws {
        let body = AssertedRequestBody(method: "POST", path: "/a", bodySha256: nil, ip: "not an address")
        let refusal = #expect(throws: EngineError.self) { try AssertedRequest(body) }
        #expect(refusal?.code == .invalidField && refusal?.message.contains("request.ip") == true, "\(String(describing: refusal))")
        let fine = try AssertedRequest(AssertedRequestBody(method: "POST", path: "/a", bodySha256: nil, ip: "203.0.113.9", attributes: ["tier": .string("gold")]))
        #expect(fine.ip?.text == "203.0.113.9" && fine.attributes?["tier"] == .string("gold"))
    }
}
