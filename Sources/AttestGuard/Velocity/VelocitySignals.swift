import Foundation
import RiskRules
import RiskStore

/// Reads the `velocity.<event>.<per>.<window>` signals a rule set uses for one request: one store round trip for
/// all of them, plus this process's increments the store does not hold yet (``VelocityRecorder``). A signal whose subject the request lacks (no IP, no
/// device id) stays missing.
struct VelocitySignals: Sendable {
    let recorder: VelocityRecorder

    func fill(_ values: SignalValues, names: [String], appId: String, subjects: VelocitySubjects, now: Date) async throws {
        var wanted: [(name: String, sum: VelocitySum)] = []
        // One keyed hash per dimension, however many windows and events of it the rules read.
        var hashed: [String: String] = [:]
        for name in names where name.hasPrefix("velocity.") {
            let parts = name.split(separator: ".").map(String.init)
            guard parts.count == 4, let window = SignalSchema.velocityWindow(parts[3]),
                let value = subjects.value(of: parts[2])
            else { continue }
            let subject = hashed[parts[2]] ?? recorder.keying.subject(parts[2], value)
            hashed[parts[2]] = subject
            let granularity = VelocityWindow.granularity(for: window)
            let sum = VelocitySum(
                subject: subject,
                event: parts[1],
                granularity: granularity,
                since: VelocityWindow.since(now: now.timeIntervalSince1970, window: window, granularity: granularity)
            )
            wanted.append((name, sum))
        }
        guard !wanted.isEmpty else { return }
        let totals = try await recorder.sums(appId: appId, wanted.map(\.sum))
        for (index, entry) in wanted.enumerated() {
            values.set(entry.name, .number(Double(totals[index])))
        }
    }
}
