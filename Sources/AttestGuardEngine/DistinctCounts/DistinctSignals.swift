import AttestGuardStore
import AttestVocabulary
import Foundation
import RiskRules

/// The `distinct.<counted>.<per>.<window>` signals a rule set uses for one request: which store counts they are
/// (``reads(_:appId:subjects:now:)``), read in the same round trip as the other scoring facts, and their values once
/// the store has answered. Each count leaves out the members this process knows of that the store may not hold yet,
/// the request's own among them, and adds them itself (``DistinctRecorder``). A signal whose per subject the
/// request lacks (no device id, say) stays missing.
struct DistinctSignals: Sendable {
    let recorder: DistinctRecorder

    /// One count, with the signal it fills and the members added to the store's count: read from the store
    /// (`store`), or not at all when this process alone knows of `DistinctCount.maximum` members (after an outage
    /// of the store), which also keeps the list a read leaves out below that bound.
    struct Read: Sendable {
        /// The slot of the signal in the rule set's values.
        var slot: SignalLayout.Slot
        var store: DistinctCountRead?
        var localMembers: Int
    }

    /// The counts to read at `now`: members seen from the start of the minute holding the window's start.
    func reads(_ wanted: [AssemblyPlan.DistinctRead], appId: String, subjects: HashedSubjects, now: Date) -> [Read] {
        wanted.compactMap { read in
            guard let subject = subjects.value(of: read.count.per) else { return nil }
            let series = DistinctSeries(appId: appId, count: read.count, subject: subject)
            let since = DistinctRecorder.minute(of: now.addingTimeInterval(-read.window))
            var local = Set(recorder.localMembers(of: series, since: since))
            if let own = subjects.value(of: read.count.counted) { local.insert(own) }
            guard local.count < DistinctCount.maximum else { return Read(slot: read.slot, store: nil, localMembers: local.count) }
            let excluding = local.sorted().map(DistinctSeries.member)
            return Read(slot: read.slot, store: DistinctCountRead(series: series.id, since: since, excluding: excluding), localMembers: local.count)
        }
    }

    /// Sets the signals from the store's counts (one per read that has a `store` part, in order), each at most
    /// `DistinctCount.maximum`.
    func set(_ values: SignalValues, _ reads: [Read], _ counts: [Int64]) {
        var stored = counts.makeIterator()
        for read in reads {
            var count = Int64(read.localMembers)
            if read.store != nil {
                guard let fromStore = stored.next() else { return }
                count += fromStore
            }
            values.set(read.slot, .number(Double(min(Int64(DistinctCount.maximum), count))))
        }
    }
}
