import AttestVocabulary
import Foundation
import RiskRules
import AttestGuardStore
/// The `velocity.<event>.<per>.<window>` signals a rule set uses for one request: which store sums they are
/// (``sums(_:subjects:now:)``), read in the same round trip as the other scoring facts, and their values once the
/// store has answered, with this process's increments the store does not hold yet (``VelocityRecorder``). A
/// signal whose subject the request lacks (no IP, no device id) stays missing.
struct VelocitySignals: Sendable {
    let recorder: VelocityRecorder

    /// The sums to read, with the slot of the signal each one fills.
    func sums(_ reads: [AssemblyPlan.VelocityRead], subjects: HashedSubjects, now: Date) -> [(slot: SignalLayout.Slot, sum: VelocitySum)] {
        reads.compactMap { read in
            guard let subject = subjects.value(of: read.dimension) else { return nil }
            let granularity = VelocityWindow.granularity(for: read.window)
            let since = VelocityWindow.since(now: now.timeIntervalSince1970, window: read.window, granularity: granularity)
            return (read.slot, VelocitySum(subject: subject, event: read.event.rawValue, since: since))
        }
    }

    func set(_ values: SignalValues, _ wanted: [(slot: SignalLayout.Slot, sum: VelocitySum)], _ totals: [Int64]) {
        for (index, entry) in wanted.enumerated() where index < totals.count {
            values.set(entry.slot, .number(Double(totals[index])))
        }
    }
}
