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
            for keyId in await context.tally.keysAwaitingRedemption() {
                guard !Task.isCancelled else { return }
                await check(keyId)
            }
            try? await context.sleep(interval)
        }
    }

    private func check(_ keyId: String) async {
        let path = "/v1/apps/\(context.settings.appId)/keys/\(Self.pathSegment(keyId))"
        guard let answer = try? await context.api.get(path), answer.succeeded,
            let receipt = answer.json["receipt"] as? [String: Any],
            receipt["type"] as? String == ReceiptType.receipt.rawValue,
            let riskMetric = receipt["riskMetric"] as? Int
        else { return }
        await context.tally.receiptRedeemed(keyId: keyId, riskMetric: riskMetric)
    }

    /// A standard base64 key id as a path segment: base64url without padding.
    static func pathSegment(_ keyId: String) -> String {
        keyId.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
}
