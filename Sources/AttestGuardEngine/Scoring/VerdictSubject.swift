import AttestGuardStore
import AttestVocabulary
import RiskRules

/// The one subject a verdict is about, where something is kept or ordered per subject (a review item, a webhook
/// event's order): the request's key (its standard base64 id), else the user's keyed hash, else the device's, else
/// the request itself (its `X-Request-Id`, kind `decision`).
struct VerdictSubject: Hashable {
    var kind: LabelSubjectKind
    var value: String

    /// `nil` when the request names none of them.
    init?(request: ScoreRequest, subjects: HashedSubjects) {
        if let keyId = request.keyId?.base64 { (kind, value) = (.key, keyId) }
        else if let user = subjects.user { (kind, value) = (.user, user) }
        else if let device = subjects.device { (kind, value) = (.device, device) }
        else if let requestId = request.requestId { (kind, value) = (.decision, requestId) }
        else { return nil }
    }
}

extension RuleEvaluation {
    /// Whether the verdict was decided without the rules (a store outage, a failed verdict): it says nothing about
    /// its subject, so it opens no review item and sends no webhook event.
    var isFallback: Bool {
        fired.isEmpty && decidedBy.flatMap(FallbackReason.init(rawValue:)) != nil
    }
}
