public import AsyncHTTPClient
import AttestGuardWire
import Foundation
import NIOHTTP1
public import AttestVocabulary

/// Redeems receipts at Apple's `attestationData` endpoint.
///
/// Each call is `POST <base>/v1/attestationData` with `Authorization: <provider token>` (bare, no `Bearer`)
/// and the receipt as base64 text; the answer becomes a ``ReceiptRedemptionOutcome`` through
/// ``outcome(status:retryAfter:body:)``. The client uses the `HTTPClient` it is given and never shuts it
/// down: the caller owns it (the default, `HTTPClient.shared`, needs no shutdown).
public struct ReceiptRedemptionClient: ReceiptRedeeming {
    /// Where and how long to ask: Apple's hosts (``AppleEndpoint/receiptRedemption``) unless a fake is named.
    public typealias Configuration = AppleEndpoint

    /// The path Apple serves redemption on.
    public static let path = "/v1/attestationData"

    public let configuration: Configuration
    private let tokens: ProviderTokenSource
    private let exchange: AppleHTTPExchange

    /// - Parameters:
    ///   - tokens: The provider token source.
    ///   - httpClient: The HTTP client; the caller owns it and shuts it down.
    ///   - configuration: Hosts, timeout and response size limit.
    public init(tokens: ProviderTokenSource, httpClient: HTTPClient = .shared, configuration: Configuration = .receiptRedemption) {
        self.tokens = tokens
        self.configuration = configuration
        self.exchange = AppleHTTPExchange(
            client: httpClient,
            timeout: configuration.timeout,
            maximumBodySize: configuration.maximumResponseSize
        )
    }

    public func redeem(_ receipt: [UInt8], environment: AppAttestEnvironment) async -> ReceiptRedemptionOutcome {
        let token: String
        do {
            token = try await tokens.token()
        } catch {
            return .unauthorized(detail: "no provider token: \(error)")
        }
        var headers = HTTPHeaders()
        headers.add(name: "Authorization", value: token)
        headers.add(name: "Content-Type", value: "text/plain")
        let url = Self.trimmed(configuration.baseURL(for: environment)) + Self.path
        switch await exchange.post(url: url, headers: headers, body: Array(Base64Text.encode(receipt).utf8)) {
        case .failure(.timedOut):
            return .timedOut
        case .failure(.connectionFailed(let detail)):
            return .connectionFailed(detail: detail)
        case .success(let response):
            let outcome = Self.outcome(status: response.status, retryAfter: response.headers.first(name: "Retry-After"), body: response.body)
            if case .unauthorized = outcome { await tokens.invalidate() }
            return outcome
        }
    }

    /// Maps one answer of the `attestationData` endpoint to an outcome.
    /// - Parameters:
    ///   - status: The HTTP status.
    ///   - retryAfter: The `Retry-After` header's value, when there was one (read on 429).
    ///   - body: The response body.
    /// - Returns: 200 with a base64 body → ``ReceiptRedemptionOutcome/redeemed(_:)`` (an unreadable 200 body is
    ///   ``ReceiptRedemptionOutcome/unexpectedStatus(_:detail:)``); 400 mentioning "environment" →
    ///   ``ReceiptRedemptionOutcome/incorrectEnvironment(detail:)``; each other documented status → its case.
    public static func outcome(status: Int, retryAfter retryAfterHeader: String?, body: [UInt8]) -> ReceiptRedemptionOutcome {
        // The error text is built only for errors: a 200 is decoded straight from the bytes (this is the hot path).
        var detail: String { AppleHTTPResponse.text(body) }
        switch status {
        case 200:
            guard let bytes = Base64Text.decodeBody(body), !bytes.isEmpty else {
                return .unexpectedStatus(200, detail: "the 200 body is not base64: \(AppleHTTPResponse.text(body, limit: 60))")
            }
            return .redeemed(bytes)
        case 304:
            return .notModified
        case 400:
            return detail.lowercased().contains("environment") ? .incorrectEnvironment(detail: detail) : .badRequest(detail: detail)
        case 401:
            return .unauthorized(detail: detail)
        case 404:
            return .noData
        case 429:
            return .throttled(retryAfter: retryAfter(retryAfterHeader))
        case 500...599:
            return .serverError(status: status)
        default:
            return .unexpectedStatus(status, detail: detail)
        }
    }

    /// `Retry-After` in seconds; an HTTP-date, a negative or an unreadable value gives `nil`.
    public static func retryAfter(_ value: String?) -> Duration? {
        guard let value, let seconds = Int(value.trimmingCharacters(in: .whitespaces)), seconds >= 0 else { return nil }
        return .seconds(seconds)
    }

    static func trimmed(_ baseURL: String) -> String {
        var url = baseURL
        while url.hasSuffix("/") { url.removeLast() }
        return url
    }
}
