public import AsyncHTTPClient
public import Foundation
import NIOHTTP1
public import AttestVocabulary

/// Talks to Apple's DeviceCheck API: `query_two_bits`, `update_two_bits` and `validate_device_token`.
///
/// Each call is a POST with `Authorization: Bearer <provider token>` and a ``DeviceCheckRequestBody`` (a fresh
/// transaction id, the injected clock's time in milliseconds). Outcomes are decided by status code, as Apple's
/// body texts vary; see ``failure(status:body:)``. The caller owns the `HTTPClient` (the default,
/// `HTTPClient.shared`, needs no shutdown).
public struct DeviceCheckClient: DeviceChecking {
    /// Where and how long to ask: Apple's hosts (``AppleEndpoint/deviceCheck``) unless a fake is named.
    public typealias Configuration = AppleEndpoint

    /// Apple's three paths.
    public enum Path {
        public static let query = "/v1/query_two_bits"
        public static let update = "/v1/update_two_bits"
        public static let validate = "/v1/validate_device_token"
    }

    public let configuration: Configuration
    private let tokens: ProviderTokenSource
    private let exchange: AppleHTTPExchange
    private let now: @Sendable () -> Date
    private let transactionId: @Sendable () -> String

    /// - Parameters:
    ///   - tokens: The provider token source.
    ///   - httpClient: The HTTP client; the caller owns it and shuts it down.
    ///   - configuration: Hosts, timeout and response size limit.
    ///   - now: The clock the `timestamp` field is read from.
    ///   - transactionId: Makes each request's `transaction_id` (a random UUID by default).
    public init(
        tokens: ProviderTokenSource,
        httpClient: HTTPClient = .shared,
        configuration: Configuration = .deviceCheck,
        now: @escaping @Sendable () -> Date = { Date() },
        transactionId: @escaping @Sendable () -> String = { UUID().uuidString }
    ) {
        self.tokens = tokens
        self.configuration = configuration
        self.now = now
        self.transactionId = transactionId
        self.exchange = AppleHTTPExchange(
            client: httpClient,
            timeout: configuration.timeout,
            maximumBodySize: configuration.maximumResponseSize
        )
    }

    public func query(deviceToken: String, environment: AppAttestEnvironment) async -> Result<DeviceCheckQueryAnswer, DeviceCheckFailure> {
        await send(Path.query, deviceToken: deviceToken, bit0: nil, bit1: nil, environment: environment).flatMap(Self.queryAnswer)
    }

    public func update(deviceToken: String, bit0: Bool?, bit1: Bool?, environment: AppAttestEnvironment) async -> Result<Void, DeviceCheckFailure> {
        await send(Path.update, deviceToken: deviceToken, bit0: bit0, bit1: bit1, environment: environment).map { _ in () }
    }

    public func validate(deviceToken: String, environment: AppAttestEnvironment) async -> Result<Void, DeviceCheckFailure> {
        await send(Path.validate, deviceToken: deviceToken, bit0: nil, bit1: nil, environment: environment).map { _ in () }
    }

    /// Sends one request; a 200 answer's body, or the failure.
    private func send(
        _ path: String,
        deviceToken: String,
        bit0: Bool?,
        bit1: Bool?,
        environment: AppAttestEnvironment
    ) async -> Result<[UInt8], DeviceCheckFailure> {
        let token: String
        do {
            token = try await tokens.token()
        } catch {
            return .failure(DeviceCheckFailure(.unauthorized, detail: "no provider token: \(error)"))
        }
        let milliseconds = Int64((now().timeIntervalSince1970 * 1000).rounded(.down))
        let body = DeviceCheckRequestBody(
            deviceToken: deviceToken,
            transactionId: transactionId(),
            timestamp: milliseconds,
            bit0: bit0,
            bit1: bit1
        )
        let encoded: [UInt8]
        do {
            encoded = Array(try JSONEncoder().encode(body))
        } catch {
            return .failure(DeviceCheckFailure(.badRequest, detail: "the request body could not be encoded: \(error)"))
        }
        var headers = HTTPHeaders()
        headers.add(name: "Authorization", value: "Bearer \(token)")
        headers.add(name: "Content-Type", value: "application/json")
        let url = ReceiptRedemptionClient.trimmed(configuration.baseURL(for: environment)) + path
        switch await exchange.post(url: url, headers: headers, body: encoded) {
        case .failure(.timedOut):
            return .failure(DeviceCheckFailure(.timedOut, detail: "no answer within \(configuration.timeout)"))
        case .failure(.connectionFailed(let detail)):
            return .failure(DeviceCheckFailure(.connectionFailed, detail: detail))
        case .success(let response) where response.status == 200:
            return .success(response.body)
        case .success(let response):
            if response.status == 401 { await tokens.invalidate() }
            return .failure(Self.failure(status: response.status, body: response.body))
        }
    }

    /// Reads a 200 answer of `query_two_bits`: the JSON bits, or `Bit State Not Found` (trimmed, any case).
    public static func queryAnswer(_ body: [UInt8]) -> Result<DeviceCheckQueryAnswer, DeviceCheckFailure> {
        let text = String(decoding: body, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if text.caseInsensitiveCompare(DeviceCheckQueryResponseBody.notFoundText) == .orderedSame {
            return .success(.notFound)
        }
        guard let decoded = try? JSONDecoder().decode(DeviceCheckQueryResponseBody.self, from: Data(body)) else {
            return .failure(
                DeviceCheckFailure(.unexpectedResponse, status: 200, detail: "unreadable query answer: \(AppleHTTPResponse.text(body))")
            )
        }
        return .success(.bits(decoded.bits))
    }

    /// The failure a non-200 status means; the body text (trimmed, at most 200 characters) is the detail.
    public static func failure(status: Int, body: [UInt8]) -> DeviceCheckFailure {
        let code: DeviceCheckFailure.Code
        switch status {
        case 400: code = .badRequest
        case 401: code = .unauthorized
        case 403: code = .forbidden
        case 405: code = .methodNotAllowed
        case 429: code = .throttled
        case 500...599: code = .serverError
        default: code = .unexpectedResponse
        }
        return DeviceCheckFailure(code, status: status, detail: AppleHTTPResponse.text(body))
    }
}
