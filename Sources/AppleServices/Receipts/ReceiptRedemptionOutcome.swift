/// What Apple's `attestationData` endpoint answered to one redemption, one case per documented status.
///
/// Redemption never throws: every answer, including a timeout or a dropped connection, is a value the
/// scheduler decides on (replace, keep, back off, retry).
public enum ReceiptRedemptionOutcome: Sendable, Equatable {
    /// 200: a new receipt (decoded from Apple's base64 body), still to be verified before it is stored.
    case redeemed([UInt8])
    /// 304: asked before the stored receipt's not-before; keep it and try after not-before.
    case notModified
    /// 400 naming the environment: the receipt belongs to the other host.
    case incorrectEnvironment(detail: String)
    /// 400 otherwise: Apple could not read the payload.
    case badRequest(detail: String)
    /// 401: the provider token is bad or does not match the receipt's team.
    case unauthorized(detail: String)
    /// 404: Apple has no data for this receipt (nothing attested for 30 days); keep the last receipt, stale.
    case noData
    /// 429: too many requests; `retryAfter` from the `Retry-After` header when present.
    case throttled(retryAfter: Duration?)
    /// 500, 503 and any other 5xx: retry with back-off.
    case serverError(status: Int)
    /// No answer before the request deadline.
    case timedOut
    /// The connection could not be made or broke before an answer.
    case connectionFailed(detail: String)
    /// A status Apple does not document for this endpoint.
    case unexpectedStatus(Int, detail: String)
}
