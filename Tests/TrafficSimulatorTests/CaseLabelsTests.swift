import AttestVocabulary
import Testing
@testable import TrafficSimulator

/// The demo's fraud labels: every checked verdict of a labelled persona, by request id, except the personas the
/// analyst labels by deciding their review items.
struct CaseLabelsTests {
    static func result(_ persona: Persona, requestIds: [String?]) -> PersonaResult {
        PersonaResult(persona: persona, expected: PersonaExpectations.expected(for: persona), outcomes: requestIds.map {
            .verdict(ObservedVerdict(decision: .review, score: 50, ruleIds: [], requestId: $0))
        })
    }

    @Test("labels name each checked verdict's request; review-queue personas and unlabelled ones get none")
    func labelsLeaveReviewQueuePersonasOut() {
        let labels = CaseLabels.labels(for: [
            Self.result(.burst, requestIds: ["burst-1", nil]),
            Self.result(.honest, requestIds: ["honest-1", "honest-2"]),
            Self.result(.unattestedOutsideRollout, requestIds: ["outside-1"]),
            Self.result(.unattestedInsideRollout, requestIds: ["inside-1"]),
            Self.result(.replayer, requestIds: ["replay-1"]),
        ], appId: "TEAM.app")
        #expect(labels.map(\.requestId) == ["burst-1", "honest-1", "honest-2"])
        #expect(labels.map(\.label) == [FraudLabel.fraud, .legitimate, .legitimate].map(\.rawValue))
        #expect(labels.allSatisfy { $0.source == CaseLabels.source && $0.appId == "TEAM.app" })
        #expect(CaseLabels.batches(Array(repeating: labels[0], count: CaseLabels.batchSize + 1)).map(\.labels.count) == [CaseLabels.batchSize, 1])
    }

    @Test("every persona decided in the review queue is labelled and expects a review verdict, which opens an item")
    func reviewQueuePersonasExpectReviews() {
        for persona in PersonaExpectations.decidedInReviewQueue {
            #expect(PersonaExpectations.label(for: persona) != nil, "\(persona)")
            guard case .verdict(let decision, _, _) = PersonaExpectations.expected(for: persona) else {
                Issue.record("\(persona) expects no verdict")
                continue
            }
            #expect(decision == .review, "\(persona)")
        }
    }
}
