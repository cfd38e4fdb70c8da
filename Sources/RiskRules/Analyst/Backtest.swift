public import Foundation
public import AttestVocabulary

/// Replays a candidate rule set over logged decisions: each logged signal snapshot is evaluated with the candidate
/// at the instant it was decided, and the report says how decisions move (a matrix from the logged rules' decision
/// to the candidate's), how often each rule fires before and after, and how many decisions read a signal their
/// snapshot lacks (it evaluates as missing: a signal new to the candidate, or a raw id the log never keeps; a
/// distinct count is recomputed from the log's subjects instead, ``DistinctReplay``).
public struct Backtest: Sendable {
    /// One logged decision, as the backtest needs it.
    public struct LoggedDecision: Sendable {
        public var decidedAt: Date
        /// The rules' own decision when it was logged (before any monitor mode).
        public var decision: Decision
        public var fired: [String]
        /// The snapshot: a JSON object of signal names to values.
        public var signals: String
        /// What the fraud team labelled the decision, if anything (its own label, else its key's, user's, device's).
        public var label: FraudLabel?
        /// The decision's subjects, from which the distinct counts its snapshot lacks are recomputed; `nil`: none are.
        public var subjects: DistinctReplay.Subjects?

        public init(
            decidedAt: Date, decision: Decision, fired: [String], signals: String, label: FraudLabel? = nil, subjects: DistinctReplay.Subjects? = nil
        ) {
            self.decidedAt = decidedAt
            self.decision = decision
            self.fired = fired
            self.signals = signals
            self.label = label
            self.subjects = subjects
        }
    }

    /// What the replay found.
    public struct Report: Sendable {
        public var decisions = 0
        /// `matrix[old][new]`: how many decisions went from `old` to `new`.
        public var matrix: [Decision: [Decision: Int]] = [:]
        public var hitsBefore: [String: Int] = [:]
        public var hitsAfter: [String: Int] = [:]
        /// Decisions that read at least one signal missing from their snapshot, and which signals.
        public var touchedByMissing = 0
        public var missingSignals: [String: Int] = [:]
        /// Distinct counts the snapshots lacked, recomputed from the log's subjects (``DistinctReplay``), by signal.
        public var recomputedSignals: [String: Int] = [:]
        /// Snapshots that are not a JSON object (skipped).
        public var unreadable = 0
        /// The rules of both sets measured against the labelled decisions.
        public var labels = LabelScores()

        public var changed: Int {
            matrix.reduce(0) { total, row in total + row.value.filter { $0.key != row.key }.reduce(0) { $0 + $1.value } }
        }

        /// Rules by the size of the change in their hit count, largest first.
        public var movers: [(rule: String, before: Int, after: Int)] {
            Set(hitsBefore.keys).union(hitsAfter.keys)
                .map { ($0, hitsBefore[$0] ?? 0, hitsAfter[$0] ?? 0) }
                .filter { $0.1 != $0.2 }
                .sorted { abs($0.2 - $0.1) != abs($1.2 - $1.1) ? abs($0.2 - $0.1) > abs($1.2 - $1.1) : $0.0 < $1.0 }
        }
    }

    public let candidate: RuleSet
    public private(set) var report = Report()
    /// The sightings of the decisions recorded so far, for the distinct counts snapshots lack.
    private var distinct: DistinctReplay

    public init(candidate: RuleSet) {
        self.candidate = candidate
        self.distinct = DistinctReplay(for: candidate)
    }

    /// Records a decision before the replayed range as a sighting of its subjects only (the lead-in of the distinct
    /// counts, ``DistinctReplay/leadIn(for:)``).
    public mutating func recordLeadIn(_ subjects: DistinctReplay.Subjects) {
        distinct.record(subjects)
    }

    public mutating func replay(_ decision: LoggedDecision) {
        if let subjects = decision.subjects { distinct.record(subjects) }
        guard let object = try? JSONDecoder().decode([String: SnapshotValue].self, from: Data(decision.signals.utf8)) else {
            report.unreadable += 1
            return
        }
        let values = candidate.values(now: decision.decidedAt.timeIntervalSince1970)
        var lacking = false
        for (name, slot) in candidate.layout.slots {
            guard let raw = object[name] else {
                if let subjects = decision.subjects, SignalSchema.distinctCount(named: name) != nil {
                    values.set(name, distinct.value(name, for: subjects).map(SignalValue.number))
                    report.recomputedSignals[name, default: 0] += 1
                    continue
                }
                lacking = true
                report.missingSignals[name, default: 0] += 1
                continue
            }
            values.set(name, Self.value(raw, type: slot.type))
        }
        if lacking { report.touchedByMissing += 1 }
        let evaluation = candidate.evaluate(values)
        report.decisions += 1
        report.matrix[decision.decision, default: [:]][evaluation.decision, default: 0] += 1
        for rule in decision.fired { report.hitsBefore[rule, default: 0] += 1 }
        for fired in evaluation.fired { report.hitsAfter[fired.id, default: 0] += 1 }
        if let label = decision.label {
            report.labels.record(label, before: decision.decision, firedBefore: decision.fired, after: evaluation.decision, firedAfter: evaluation.fired.map(\.id))
        }
    }

    static func value(_ raw: SnapshotValue, type: SignalType) -> SignalValue? {
        switch (raw, type) {
        case (.number(let value), .number): .number(value)
        case (.number(let value), .duration): .duration(value)
        case (.number(let value), .timestamp): .timestamp(value)
        case (.string(let text), .string): .string(text)
        case (.bool(let flag), .bool): .bool(flag)
        default: nil
        }
    }
}

