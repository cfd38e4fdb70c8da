import Foundation
import RiskRules
import RiskStore

/// Reads the `velocity.<event>.<per>.<window>` signals a rule set uses for one request: one store round trip for
/// all of them, plus this process's increments the store does not hold yet (``VelocityRecorder``). A signal whose subject the request lacks (no IP, no
/// device id) stays missing.
struct VelocitySignals: Sendable {
    let recorder: VelocityRecorder

    func fill(_ values: SignalValues, reads: [AssemblyPlan.VelocityRead], appId: String, subjects: VelocitySubjects, now: Date) async throws {
        var wanted: [(name: String, sum: VelocitySum)] = []
        // One keyed hash per dimension, however many windows and events of it the rules read.
        var hashed: [String: String] = [:]
        for read in reads {
            guard let value = subjects.value(of: read.dimension) else { continue }
            let subject = hashed[read.dimension] ?? recorder.keying.subject(read.dimension, value)
            hashed[read.dimension] = subject
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
