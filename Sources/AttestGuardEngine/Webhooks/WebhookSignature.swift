import Crypto
public import Foundation

/// Signs a webhook delivery as Standard Webhooks does, so that a receiver can check it with any of that standard's
/// libraries: `webhook-signature` is `v1,` and the base64 HMAC-SHA256, under the secret's key, of
/// `<webhook-id>.<webhook-timestamp>.<body>`. The timestamp (Unix seconds) is the attempt's, so that a receiver can
/// refuse a delivery older than its tolerance (five minutes is usual) and, with the id, any replay of one it took.
/// A receiver with several secrets (a rotation) gets one signature per secret, separated by spaces, as the standard
/// writes them; its libraries accept a delivery when any of them verifies.
public enum WebhookSignature {
    public static let idHeader = "webhook-id"
    public static let timestampHeader = "webhook-timestamp"
    public static let signatureHeader = "webhook-signature"

    /// The `webhook-signature` value for one attempt.
    public static func sign(id: String, timestamp: Int64, body: Data, secret: WebhookSecret) -> String {
        var message = Data("\(id).\(timestamp).".utf8)
        message.append(body)
        let mac = HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: secret.key))
        return "v1," + Data(mac).base64EncodedString()
    }

    /// The `webhook-signature` value for one attempt signed with each of `secrets`, in their order.
    public static func sign(id: String, timestamp: Int64, body: Data, secrets: [WebhookSecret]) -> String {
        secrets.map { sign(id: id, timestamp: timestamp, body: body, secret: $0) }.joined(separator: " ")
    }

    /// The three headers of one attempt at `instant`.
    public static func headers(id: String, at instant: Date, body: Data, secrets: [WebhookSecret]) -> [(name: String, value: String)] {
        let timestamp = Int64(instant.timeIntervalSince1970.rounded(.down))
        return [
            (idHeader, id), (timestampHeader, String(timestamp)),
            (signatureHeader, sign(id: id, timestamp: timestamp, body: body, secrets: secrets)),
        ]
    }
}
