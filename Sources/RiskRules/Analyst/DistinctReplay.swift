import AttestVocabulary
public import Foundation

/// Distinct counts recomputed from the decision log, for a backtest whose candidate reads a `distinct.*` signal the
/// logged rules did not (so the snapshots lack it): every logged decision is a sighting of its subjects together, as
/// every live verdict is, and a count is the members seen from the start of the minute holding the window's start,
/// the decision's own included, at most `DistinctCount.maximum`: the live rules, over the verdicts the log kept.
///
/// It counts what the log holds, which may differ from what a live verdict read either way: verdicts dropped from
/// the log, and sightings before the replay began, are not there (lower); every process's sightings are there at
/// once, while a live verdict sees another process's only after that process wrote them, about a second later, and
/// the live recorder may have dropped some past its bound during an outage (higher). ``record(_:)`` the decisions of
/// a lead-in as long as the longest window first (``DistinctReplay/leadIn(for:)``), and each replayed decision
/// before its counts are read.
public struct DistinctReplay: Sendable {
    /// A logged decision's subjects, as the log names them (a key by its id, the others by their keyed hashes).
    public struct Subjects: Sendable, Hashable {
        public var appId: String
        public var key: String?
        public var user: String?
        public var device: String?
        public var ip: String?
        public var decidedAt: Date

        public init(appId: String, key: String?, user: String?, device: String?, ip: String?, decidedAt: Date) {
            self.appId = appId
            self.key = key
            self.user = user
            self.device = device
            self.ip = ip
            self.decidedAt = decidedAt
        }

        func value(of dimension: VelocityDimension) -> String? {
            switch dimension {
            case .key: key
            case .user: user
            case .device: device
            case .ip: ip
            }
        }
    }

    private struct Series: Hashable {
        var appId: String
        var count: DistinctCount
        var subject: String
    }

    /// Members by series, each with the minute it was last seen.
    private var members: [Series: [String: Int64]] = [:]
    /// The counts recorded: those a candidate reads, so that a long replay holds no others.
    private let counts: [DistinctCount]

    /// A replay of the distinct counts `ruleSet` reads.
    public init(for ruleSet: RuleSet) {
        counts = DistinctCount.all.filter { count in ruleSet.layout.names.contains { SignalSchema.distinctCount(named: $0)?.count == count } }
    }

    /// How far before the replayed range to record sightings for `ruleSet`'s distinct counts: its longest window (0
    /// when it reads none).
    public static func leadIn(for ruleSet: RuleSet) -> TimeInterval {
        ruleSet.layout.names.compactMap { SignalSchema.distinctCount(named: $0)?.window }.max() ?? 0
    }

    static func minute(of instant: Date) -> Int64 { DistinctCount.minute(ofSecondsSince1970: instant.timeIntervalSince1970) }

    /// Records that a decision saw its subjects together.
    public mutating func record(_ subjects: Subjects) {
        let minute = Self.minute(of: subjects.decidedAt)
        for count in counts {
            guard let subject = subjects.value(of: count.per), let member = subjects.value(of: count.counted) else { continue }
            let series = Series(appId: subjects.appId, count: count, subject: subject)
            members[series, default: [:]][member] = max(members[series]?[member] ?? minute, minute)
        }
    }

    /// The value of the distinct signal `name` for a decision with `subjects` (recorded first): `nil` when the
    /// decision lacks the subject counted per, or `name` is no distinct count.
    func value(_ name: String, for subjects: Subjects) -> Double? {
        guard let signal = SignalSchema.distinctCount(named: name), let subject = subjects.value(of: signal.count.per) else { return nil }
        let since = Self.minute(of: subjects.decidedAt.addingTimeInterval(-signal.window))
        let seen = members[Series(appId: subjects.appId, count: signal.count, subject: subject)] ?? [:]
        return Double(min(DistinctCount.maximum, seen.values.reduce(0) { $0 + ($1 >= since ? 1 : 0) }))
    }
}
