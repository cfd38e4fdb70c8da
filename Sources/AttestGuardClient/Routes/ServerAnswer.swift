public import Foundation
import AttestGuardWire
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// A refusal as the gateway or AttestGuard sent it: the status, the error code (`X-AttestGuard-Error`, else the
/// JSON body's `error.code`), the message and `Retry-After`.
public struct ServerAnswer: Sendable, Hashable, CustomStringConvertible {
    /// The HTTP status the client received.
    public var status: Int
    /// The error code, when the answer carries one.
    public var code: ServerErrorCode?
    /// The error message, when the body carries one.
    public var message: String?
    /// Seconds to wait before trying again, when the answer says.
    public var retryAfter: Int?
    /// Whether the code came in `X-AttestGuard-Error`, which only the gateway's refusal carries: the request
    /// stopped at the gateway and never reached the app's upstream.
    public var refusedAtGateway: Bool

    /// The header a gateway's refusal carries its code in.
    public static let errorHeader = "X-AttestGuard-Error"

    /// An answer of these parts, as a test or a transport of your own makes one.
    public init(status: Int, code: ServerErrorCode?, message: String?, retryAfter: Int?, refusedAtGateway: Bool) {
        self.status = status
        self.code = code
        self.message = message
        self.retryAfter = retryAfter
        self.refusedAtGateway = refusedAtGateway
    }

    /// Reads a response; the body is read only when it is an error envelope `{"error":{"code","message"}}`.
    public init(response: HTTPURLResponse, body: Data) {
        let envelope = try? JSONDecoder().decode(ErrorResponseBody.self, from: body)
        let header = response.value(forHTTPHeaderField: Self.errorHeader).flatMap { $0.isEmpty ? nil : $0 }
        self.init(
            status: response.statusCode,
            code: (header ?? envelope?.error.code).map(ServerErrorCode.init(rawValue:)),
            message: envelope?.error.message,
            retryAfter: response.value(forHTTPHeaderField: "Retry-After").flatMap { Int($0) },
            refusedAtGateway: header != nil
        )
    }

    public var description: String {
        var text = "HTTP \(status)"
        if let code { text += " \(code)" }
        if let message { text += ": \(message)" }
        return text
    }
}
