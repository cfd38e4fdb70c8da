public import Foundation

extension RuleSet {
    /// The evaluation of a logged signal snapshot (a JSON object of signal names to values, as the decision log
    /// keeps it) under this rule set, at the instant it was decided: what the reasons of the rules that fired said.
    /// Signals the snapshot lacks (the raw user id, IP and device id, which the log never keeps) read as missing.
    /// - Returns: `nil` when the snapshot is not a JSON object.
    public func evaluate(snapshot: String, decidedAt: Date) -> RuleEvaluation? {
        values(snapshot: snapshot, decidedAt: decidedAt).map { evaluate($0) }
    }

    /// The signal values of a logged snapshot for this rule set, at the instant it was decided (`nil` when the
    /// snapshot is not a JSON object): what `attestguard rules explain --request-id` evaluates.
    public func values(snapshot: String, decidedAt: Date) -> SignalValues? {
        guard let object = try? JSONDecoder().decode([String: SnapshotValue].self, from: Data(snapshot.utf8)) else { return nil }
        let values = values(now: decidedAt.timeIntervalSince1970)
        for (name, slot) in layout.slots {
            if let raw = object[name] { values.set(name, Backtest.value(raw, type: slot.type)) }
        }
        return values
    }
}
