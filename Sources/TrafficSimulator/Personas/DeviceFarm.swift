import Foundation

/// A device farm: many devices behind one address, each attesting a fresh key for a fresh user, whose receipts
/// Apple (the fake) answers with a high risk metric. Once the server has redeemed every farm receipt, each key
/// sends one assertion; those verdicts are checked.
enum DeviceFarm {
    /// Above the shipped `new-keys-burst` threshold (20 new keys from one IP in 24 hours).
    static let devices = 22
    static let riskMetric = 35

    static func play(_ context: TrafficContext) async throws -> [ObservedOutcome] {
        guard let fakeApple = context.fakeApple else {
            return [.unexpected("the farm needs the fake Apple's control route (--fake-apple)")]
        }
        var apps: [SimulatedAppInstance] = []
        for index in 0..<devices {
            let app = context.app(.farm, name: "farm-\(index + 1)", ip: context.settings.farmAddress)
            // Before the attestation: the first redemption already carries the farm's metric.
            try await fakeApple.setRiskMetric(riskMetric, forKey: app.keyId)
            _ = try await app.attest()
            apps.append(app)
        }
        try await waitForRedemption(of: apps.map(\.keyId), context)
        var outcomes: [ObservedOutcome] = []
        for var app in apps {
            let payload = try await app.signAssertion(action: "purchase")
            outcomes.append(try await app.send(payload).outcome)
        }
        return outcomes
    }

    /// Waits until the receipt watcher has seen every key's receipt redeemed, or the run's receipt timeout passes.
    private static func waitForRedemption(of keyIds: [String], _ context: TrafficContext) async throws {
        let deadline = ContinuousClock.now + context.settings.receiptTimeout
        while true {
            var waiting = 0
            for keyId in keyIds where await context.tally.riskMetric(ofKey: keyId) == nil { waiting += 1 }
            if waiting == 0 { return }
            guard ContinuousClock.now < deadline else {
                throw PersonaStepFailure(
                    step: "receipt redemption",
                    outcome: .unexpected("\(waiting) of \(keyIds.count) farm receipts not redeemed within \(context.settings.receiptTimeout) (is receipt refresh on?)")
                )
            }
            try await context.sleep(.milliseconds(250))
        }
    }
}
