import AttestGuardStore
import DequeModule
public import Foundation
import Metrics
import RiskRules
import AttestVocabulary
import Synchronization

/// The actions fired rules ask for, queued on the request path and run behind it (``RuleActionService``), so that an
/// action never delays or fails the verdict that asked for it.
///
/// An action is queued at most once per app, action, target and period in this process (the store then holds it
/// across processes): a farm device asserting a hundred times a minute queues one revocation. The period is the
/// entry's lifetime for `add_to_list`, and ``period`` for the others. In monitor mode an action is counted and
/// logged as `monitored` instead; the shadow rule set's actions are counted as `shadow`. The queue is bounded: past
/// ``maximumQueued`` an action is dropped and counted as `dropped`.
public final class RuleActionQueue: Sendable {
    /// One action to run: what the rule asked for, on what, and until when no other run of it may start.
    struct Pending: Sendable {
        var appId: String
        var ruleId: String
        var action: RuleAction
        /// The store's name for what the action acts on (``RuleActionTarget``).
        var target: String
        /// What the action acts on as its store writes it: a key id in standard base64, the value added to a list,
        /// a labelled subject as labels store it (a key id, a user's or device's keyed hash); the target's text for
        /// `set_devicecheck_bit1`, whose subjects are ``deviceCheckSubjects``.
        var subject: String
        /// The DeviceCheck subjects `set_devicecheck_bit1` flags; empty for the other actions.
        var deviceCheckSubjects: [DeviceCheckSubject] = []
        var queuedAt: Date
        var heldUntil: Date

        var claim: RuleActionClaim {
            RuleActionClaim(
                appId: appId, action: action.name.rawValue, target: target, ruleId: ruleId, description: action.description,
                claimedAt: queuedAt, heldUntil: heldUntil
            )
        }
    }

    /// How long an action other than `add_to_list` holds its target: one revocation or label a day at most.
    public static let period: TimeInterval = 86_400

    let maximumQueued: Int
    private let state: Mutex<State>

    private struct State: ~Copyable {
        var queue = Deque<Pending>()
        /// The actions queued (or recorded as monitored) lately, until their period ends.
        var recent: ExpiringTable<String, Bool>
    }

    /// - Parameters:
    ///   - maximumQueued: The most actions waiting to run.
    ///   - recentCapacity: The most recent actions remembered for the in-process once-per-period check; past it the
    ///     oldest are forgotten and the store's claim still holds.
    public init(maximumQueued: Int = 10_000, recentCapacity: Int = 100_000) {
        self.maximumQueued = max(1, maximumQueued)
        self.state = Mutex(State(recent: ExpiringTable(capacity: max(1, recentCapacity))))
        // The drops are published at 0 from the start, so that `increase()` (AttestGuardRuleActionsDropped) sees the
        // first one.
        for action in RuleActionName.allCases {
            Counter(label: MetricFamily.ruleActions.name, dimensions: [("action", action.rawValue), ("outcome", RuleActionOutcome.dropped.rawValue)])
                .increment(by: 0)
        }
    }

    /// Queues the actions of the live rule set's `evaluation` of `request` (in enforce mode), or counts and logs
    /// them as monitored (in monitor mode).
    func submit(_ evaluation: RuleEvaluation, request: ScoreRequest, subjects: HashedSubjects, mode: AppPolicy.Mode, now: Date) {
        for firing in evaluation.fired {
            guard let actions = firing.actions else { continue }
            for action in actions { submit(action, ruleId: firing.id, request: request, subjects: subjects, mode: mode, now: now) }
        }
    }

    /// Queues one action of rule `ruleId`, or counts it.
    private func submit(_ action: RuleAction, ruleId: String, request: ScoreRequest, subjects: HashedSubjects, mode: AppPolicy.Mode, now: Date) {
        guard let (target, subject) = RuleActionTarget.of(action, request: request, subjects: subjects) else {
            Self.count(action.name, .noTarget)
            return
        }
        let lifetime = if case .addToList(_, _, let seconds) = action.detail { seconds } else { Self.period }
        var pending = Pending(
            appId: request.appId, ruleId: ruleId, action: action, target: target, subject: subject, queuedAt: now, heldUntil: now.addingTimeInterval(lifetime)
        )
        if case .setDeviceCheckBit1 = action.detail { pending.deviceCheckSubjects = request.deviceCheckSubjects }
        // (outcome, whether this process sees the action for the first time in its period); no outcome: queued.
        let (outcome, first): (RuleActionOutcome?, Bool) = state.withLock { state in
            // Monitored actions are remembered apart, so that an app switched to enforce runs them at once.
            let key = Self.recentKey(pending, mode: mode)
            let seen = state.recent.value(for: key, at: now) != nil
            if mode == .monitor {
                if !seen { state.recent.insert(true, for: key, expiresAt: pending.heldUntil, now: now) }
                return (.monitored, !seen)
            }
            guard !seen else { return (.alreadyRun, false) }
            guard state.queue.count < maximumQueued else { return (.dropped, true) }
            state.recent.insert(true, for: key, expiresAt: pending.heldUntil, now: now)
            state.queue.append(pending)
            return (nil, true)
        }
        if let outcome { Self.count(action.name, outcome) }
        // One log line per target and period: the counter has the rest.
        if outcome == .monitored, first { RuleActionService.logMonitored(pending) }
    }

    /// Counts the actions the shadow rule set's `evaluation` asks for: never run.
    func recordShadow(_ evaluation: RuleEvaluation) {
        for firing in evaluation.fired {
            guard let actions = firing.actions else { continue }
            for action in actions { Self.count(action.name, .shadow) }
        }
    }

    /// Takes every queued action, oldest first.
    func takeAll() -> [Pending] {
        state.withLock { state in
            defer { state.queue.removeAll() }
            return Array(state.queue)
        }
    }

    /// Puts actions that could not be claimed (the store did not answer) back at the front, in their order; past the
    /// bound the newest are dropped, and forgotten, so that a later verdict queues them again.
    func putBack(_ actions: [Pending]) {
        let dropped = state.withLock { state -> [Pending] in
            state.queue.prepend(contentsOf: actions)
            let excess = state.queue.count - maximumQueued
            guard excess > 0 else { return [] }
            let dropped = Array(state.queue.suffix(excess))
            state.queue.removeLast(excess)
            for pending in dropped { state.recent.remove(Self.recentKey(pending, mode: .enforce)) }
            return dropped
        }
        for pending in dropped { Self.count(pending.action.name, .dropped) }
    }

    /// What the in-process once-per-period check remembers an action by.
    private static func recentKey(_ pending: Pending, mode: AppPolicy.Mode) -> String {
        "\(mode.rawValue)\u{0}\(pending.appId)\u{0}\(pending.action.name.rawValue)\u{0}\(pending.target)"
    }

    /// Actions waiting to run.
    public var queued: Int { state.withLock { $0.queue.count } }

    /// Drops every queued action, counting each as dropped, and returns how many: for a shutdown whose last run
    /// ran out of time.
    public func dropQueued() -> Int {
        let dropped = takeAll()
        for pending in dropped { Self.count(pending.action.name, .dropped) }
        return dropped.count
    }

    // Not inlined: swift-frontend 6.3.1's release pipeline (CopyPropagation) crashed on a caller with it inlined.
    @inline(never)
    static func count(_ action: RuleActionName, _ outcome: RuleActionOutcome) {
        Counter(label: MetricFamily.ruleActions.name, dimensions: [("action", action.rawValue), ("outcome", outcome.rawValue)]).increment()
    }
}

/// What an action acts on, as the store names it for the once-per-period claim, and as the action's own store
/// writes it.
enum RuleActionTarget {
    /// The target and subject of `action` for `request`; `nil` when the request names none (no key to revoke or
    /// label, no user or device to label).
    static func of(_ action: RuleAction, request: ScoreRequest, subjects: HashedSubjects) -> (target: String, subject: String)? {
        switch action.detail {
        case .setDeviceCheckBit1:
            let subjects = request.deviceCheckSubjects
            guard !subjects.isEmpty else { return nil }
            let text = subjects.map { "\($0.kind.rawValue):\($0.value)" }.joined(separator: "\n")
            return (text, text)
        case .revokeKey:
            return request.keyId.map { ($0.base64, $0.base64) }
        case .addToList(let list, let value, _):
            return ("\(list):\(value)", value)
        case .label(let label, let source, let kind):
            let subject: String? = switch kind {
            case .key: request.keyId?.base64
            case .user: subjects.user
            case .device: subjects.device
            case .decision: request.requestId
            }
            // The label and its source are part of the target: two rules' labels of one subject are two actions.
            return subject.map { ("\(kind.rawValue):\($0) \(label.rawValue) \(source)", $0) }
        }
    }
}
