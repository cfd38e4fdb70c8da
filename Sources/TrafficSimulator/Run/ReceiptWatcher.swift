import AttestVocabulary
import Foundation

/// Follows the run's registered keys through `GET /v1/apps/{appId}/keys/{keyId}` until each key's receipt has been
/// redeemed with Apple (the fake), and records the risk metric it brought in the tally.
struct ReceiptWatcher: Sendable {
    let context: TrafficContext
    var interval: Duration = .seconds(1)

    /// Runs until cancelled.
    func run() async {
        while !Task.isCancelled {
            for keyId in await context.tally.keysAwaitingRedemption(patience: context.settings.receiptTimeout) {
                guard !Task.isCancelled else { return }
                await check(keyId)
            }
            try? await context.sleep(interval)
        }
    }

    private func check(_ keyId: String) async {
        guard let answer = try? await context.api.get(AttestGuardAPI.keyPath(appId: context.settings.appId, keyId: keyId)), answer.succeeded,
            let receipt = answer.json["receipt"] as? [String: Any],
            receipt["type"] as? String == ReceiptType.receipt.rawValue,
            let riskMetric = receipt["riskMetric"] as? Int
        else { return }
        await context.tally.receiptRedeemed(keyId: keyId, riskMetric: riskMetric)
    }
}
