import Foundation

/// Honest users: each attests one key on its own device and address, then sends assertions at a human pace until
/// `done` says so (at least one each). Every assertion is checked.
enum HonestUsers {
    static let actions = ["purchase", "view_orders", "update_profile"]

    static func play(_ context: TrafficContext, until done: @escaping @Sendable () -> Bool) async throws -> [ObservedOutcome] {
        try await withThrowingTaskGroup(of: [ObservedOutcome].self) { group in
            for index in 0..<context.settings.honestUsers {
                group.addTask {
                    var app = context.app(.honest, name: "honest-\(index + 1)", ip: context.settings.clientAddress(host: 100 + index))
                    _ = try await app.attest()
                    var outcomes: [ObservedOutcome] = []
                    // Staggered over an interval (or a shorter run), so that together the users send a steady trickle.
                    let spread = min(context.settings.honestInterval, context.settings.duration)
                    var next = ContinuousClock.now + spread * (Double(index) / Double(context.settings.honestUsers))
                    while true {
                        while ContinuousClock.now < next {
                            if !outcomes.isEmpty, done() { return outcomes }
                            try await context.sleep(.milliseconds(200))
                        }
                        let payload = try await app.signAssertion(action: actions[outcomes.count % actions.count])
                        outcomes.append(try await app.send(payload).outcome)
                        next = ContinuousClock.now + context.settings.honestInterval
                    }
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
    }
}
