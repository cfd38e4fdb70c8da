import Foundation
import RiskRules
import RiskStore

/// Reads the `velocity.<event>.<per>.<window>` signals a rule set uses for one request: one store round trip for
/// all of them, plus this process's increments the store does not hold yet (``VelocityRecorder``). A signal whose subject the request lacks (no IP, no
/// device id) stays missing.
struct VelocitySignals: Sendable {
    let recorder: VelocityRecorder

    func fill(_ values: SignalValues, reads: [AssemblyPlan.VelocityRead], appId: String, subjects: HashedSubjects, now: Date) async throws {
        var wanted: [(name: String, sum: VelocitySum)] = []
        for read in reads {
            guard let subject = subjects.value(of: read.dimension) else { continue }
            let granularity = VelocityWindow.granularity(for: read.window)
            let sum = VelocitySum(
                subject: subject,
                event: read.event,
                granularity: granularity,
                since: VelocityWindow.since(now: now.timeIntervalSince1970, window: read.window, granularity: granularity)
            )
            wanted.append((read.name, sum))
        }
        guard !wanted.isEmpty else { return }
        let totals = try await recorder.sums(appId: appId, wanted.map(\.sum))
        for (index, entry) in wanted.enumerated() {
            values.set(entry.name, .number(Double(totals[index])))
        }
    }
}
