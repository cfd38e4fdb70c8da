import AttestGuardEngine
import AttestVocabulary
import Foundation

/// The search page: a key's history (with `by=key`) and the decisions about a key, user or device over the range,
/// each with its action, fired rules, shadow verdict and signals.
struct SearchPage: Sendable {
    /// What the search is by.
    struct Kind: Sendable {
        var value: String
        var label: String
        var selected: Bool
    }

    struct Metric: Sendable {
        var createdAt: String
        var riskMetric: Int
        var observedAt: String
    }

    struct History: Sendable {
        var keyId: String
        var status: String
        var environment: String
        var counter: Int64
        var attestedAt: String
        var riskMetric: String
        var nextRefresh: String
        var metrics: [Metric]
    }

    struct Fired: Sendable {
        var ruleId: String
        var reason: String
    }

    struct Signal: Sendable {
        var name: String
        var value: String
    }

    struct DecisionRow: Sendable {
        var decidedAt: String
        var endpoint: String
        var action: String
        var decision: String
        var ruleDecision: String
        var score: String
        var fired: [Fired]
        var shadow: String
        var keyId: String
        var signals: [Signal]
    }

    struct Searched: Sendable {
        var count: Int
        var from: String
        var to: String
        var more: Bool
        var decisions: [DecisionRow]
    }

    /// The `by` values and their labels.
    static let kinds: [(value: String, label: String)] = [("key", "key id"), ("user", "user id"), ("device", "device id")]

    var frame: ConsoleFrame
    var appId: String
    var rangeValue: String
    var kinds: [Kind]
    var query: String
    var history: History?
    var searched: Searched?

    init(frame: ConsoleFrame, scope: ConsoleScope, by: String, query: String, history: KeyHistory?, page: DecisionPage?) {
        self.frame = frame
        appId = scope.appId
        rangeValue = scope.range.rawValue
        kinds = Self.kinds.map { Kind(value: $0.value, label: $0.label, selected: $0.value == by) }
        self.query = query
        self.history = history.map(Self.history)
        searched = page.map { page in
            Searched(
                count: page.decisions.count, from: ConsoleText.minute(page.from), to: ConsoleText.minute(page.to), more: page.next != nil,
                decisions: page.decisions.map(Self.decision)
            )
        }
    }

    private static func history(_ history: KeyHistory) -> History {
        History(
            keyId: history.key.keyId.base64, status: history.key.status.rawValue, environment: history.key.environment.rawValue,
            counter: history.key.counter, attestedAt: ConsoleText.second(history.key.attestedAt),
            riskMetric: history.receipt?.riskMetric.map { String($0) } ?? "not redeemed yet",
            nextRefresh: history.receipt?.nextRefreshAt.map(ConsoleText.second) ?? "none",
            metrics: history.riskMetrics.map {
                Metric(createdAt: ConsoleText.second($0.receiptCreatedAt), riskMetric: $0.riskMetric, observedAt: ConsoleText.second($0.observedAt))
            }
        )
    }

    private static func decision(_ logged: LoggedDecision) -> DecisionRow {
        let signals = (try? JSONSerialization.jsonObject(with: Data(logged.signals.utf8))) as? [String: Any] ?? [:]
        return DecisionRow(
            decidedAt: ConsoleText.second(logged.decidedAt), endpoint: logged.endpoint.rawValue,
            action: signals[FixedSignal.requestAction.rawValue].flatMap { $0 as? String } ?? "",
            decision: logged.decision.rawValue, ruleDecision: logged.ruleDecision.rawValue, score: BarChart.number(logged.score),
            fired: logged.fired.map { Fired(ruleId: $0.ruleId, reason: $0.reason ?? "") },
            shadow: logged.shadow.map { "\($0.decision.rawValue) [\($0.fired)]" } ?? "",
            keyId: logged.keyId ?? "",
            signals: signals.keys.sorted().map { name in Signal(name: name, value: text(signals[name])) }
        )
    }

    /// A signal's value as the page writes it: text as is, numbers and booleans as JSON writes them, `missing` for null.
    private static func text(_ value: Any?) -> String {
        switch value {
        case let text as String: text
        case nil, is NSNull: "missing"
        case let other?: "\(other)"
        }
    }
}
