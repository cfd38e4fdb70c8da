import AttestGuardStore
public import AttestGuardWire
public import AttestVocabulary
import Foundation
import RiskRules

/// One webhook event before it is written: its type, its body, and what receivers order it by. The builders here
/// are the one place each event's body is made.
public struct WebhookEvent: Sendable {
    public var type: WebhookEventType
    public var body: WebhookEventBody

    /// A new event of `type` about `appId` and `subject`, with a fresh id.
    init(_ type: WebhookEventType, appId: String?, subject: String, at instant: Date, fill: (inout WebhookEventBody) -> Void) {
        self.type = type
        var body = WebhookEventBody(id: "evt_" + UUID().uuidString.lowercased(), type: type.rawValue, createdAt: instant, appId: appId, subject: subject)
        fill(&body)
        self.body = body
    }

    /// The subject a receiver orders events about `kind` and `value` by: `key:`, `user:`, `device:`, or `request:` for a
    /// request's own (kind `decision`).
    static func subject(_ kind: LabelSubjectKind, _ value: String) -> String {
        "\(kind == .decision ? "request" : kind.rawValue):\(value)"
    }

    /// `verdict.deny` or `verdict.review` for the rules' own decision (not a fallback, which says nothing about the
    /// subject); `nil` for any other decision. Ordered by the key, else the user, the device, the request.
    static func verdict(
        _ evaluation: RuleEvaluation, request: ScoreRequest, subjects: HashedSubjects, enforced: Bool, at instant: Date
    ) -> WebhookEvent? {
        let type: WebhookEventType
        switch evaluation.decision {
        case .deny: type = .verdictDeny
        case .review: type = .verdictReview
        case .allow: return nil
        }
        if evaluation.isFallback { return nil }
        let keyId = request.keyId?.base64
        let subject = VerdictSubject(request: request, subjects: subjects).map { Self.subject($0.kind, $0.value) }
            ?? Self.subject(.decision, UUID().uuidString.lowercased())
        return WebhookEvent(type, appId: request.appId, subject: subject, at: instant) { body in
            body.verdict = WebhookVerdictBody(
                requestId: request.requestId, endpoint: request.endpoint.rawValue, action: request.action, decision: evaluation.decision.rawValue,
                enforced: enforced, score: evaluation.score, reasons: evaluation.fired.map(\.id), ruleSetVersion: evaluation.ruleSetVersion,
                keyId: keyId, userHash: subjects.user, deviceHash: subjects.device
            )
        }
    }

    static func keyRevoked(appId: String, keyId: String, by actor: String, at instant: Date) -> WebhookEvent {
        WebhookEvent(.keyRevoked, appId: appId, subject: subject(.key, keyId), at: instant) { $0.key = WebhookKeyBody(keyId: keyId, by: actor) }
    }

    /// Ordered with the item's subject's other events: a key's revocation by the same rejection comes after it.
    static func reviewDecided(_ item: ReviewItemRecord, decision: ReviewDecision, followUps: [ReviewFollowUp], at instant: Date) -> WebhookEvent {
        let subject = item.keyId.map { Self.subject(.key, $0) } ?? Self.subject(item.subjectKind, item.subject)
        return WebhookEvent(.reviewDecided, appId: item.appId, subject: subject, at: instant) { body in
            body.review = WebhookReviewBody(
                itemId: String(item.id), decision: decision.rawValue, label: decision.label.rawValue, analyst: item.decidedBy ?? "",
                subjectKind: item.subjectKind.rawValue, subjectValue: item.subject, keyId: item.keyId, actions: followUps.map(\.rawValue)
            )
        }
    }

    static func rampPaused(_ step: AttestationRampController.Step, at instant: Date) -> WebhookEvent {
        WebhookEvent(.rampPaused, appId: step.appId, subject: "app:\(step.appId)", at: instant) { body in
            body.ramp = WebhookRampBody(
                percent: step.to, periodStart: Date(timeIntervalSince1970: TimeInterval(step.period)), attempts: Int(step.outcome.attempts),
                successRate: step.outcome.successRate, rateLimitedShare: step.outcome.rateLimitedShare
            )
        }
    }

    static func modeChanged(appId: String, from: AppPolicy.Mode, to: AppPolicy.Mode, by actor: String, at instant: Date) -> WebhookEvent {
        WebhookEvent(.modeChanged, appId: appId, subject: "app:\(appId)", at: instant) { body in
            body.mode = WebhookModeBody(from: from.rawValue, to: to.rawValue, by: actor)
        }
    }

    static func listChanged(_ change: ManagedListChangeRecord) -> WebhookEvent {
        listChanged(
            change.listName, change.action, values: change.values, added: change.added, removed: change.removed, entries: change.entries,
            by: change.actor, at: change.at
        )
    }

    static func listChanged(
        _ name: String, _ action: ManagedListChangeRecord.Action, values: [String] = [], added: Int = 0, removed: Int = 0, entries: Int = 0,
        by actor: String, at instant: Date
    ) -> WebhookEvent {
        WebhookEvent(.listChanged, appId: nil, subject: "list:\(name)", at: instant) { body in
            body.list = WebhookListBody(name: name, change: action.rawValue, values: values, added: added, removed: removed, entries: entries, by: actor)
        }
    }
}
