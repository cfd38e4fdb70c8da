import AttestGuardWire
import AttestGuardEngine
public import AttestVocabulary
import Foundation
public import Hummingbird
import NIOCore

/// An error response: `{"error": {"code", "message"}}` with its status and, for 429 and 503, `Retry-After`.
public struct APIError: HTTPResponseError, Sendable {
    public var status: HTTPResponse.Status
    public var code: ErrorCode
    public var message: String
    public var retryAfterSeconds: Int?
    /// Further response headers: `Allow` on a 405, `Connection: close` after broken framing.
    public var headers: HTTPFields

    public init(_ status: HTTPResponse.Status, code: ErrorCode, _ message: String, retryAfterSeconds: Int? = nil, headers: HTTPFields = [:]) {
        self.status = status
        self.code = code
        self.message = message
        self.retryAfterSeconds = retryAfterSeconds
        self.headers = headers
    }

    /// Maps an engine refusal to its status by class.
    init(_ error: EngineError, now: Date) {
        switch error.kind {
        case .invalidInput: self.init(.badRequest, code: error.code, error.message)
        case .notFound: self.init(.notFound, code: error.code, error.message)
        case .conflict: self.init(.conflict, code: error.code, error.message)
        case .preconditionFailed: self.init(.preconditionFailed, code: error.code, error.message)
        case .verificationFailed: self.init(.unprocessableContent, code: error.code, error.message)
        case .rateLimited(let retryAt):
            let seconds = max(1, Int(retryAt.timeIntervalSince(now).rounded(.up)))
            self.init(.tooManyRequests, code: error.code, error.message, retryAfterSeconds: seconds)
        case .unavailable:
            self.init(.serviceUnavailable, code: .storeUnavailable, "the database is unavailable; retry shortly", retryAfterSeconds: 5)
        case .upstreamFailed: self.init(.badGateway, code: error.code, error.message)
        case .upstreamUnavailable(let retryAt):
            let seconds = retryAt.map { max(1, Int($0.timeIntervalSince(now).rounded(.up))) }
            self.init(.serviceUnavailable, code: error.code, error.message, retryAfterSeconds: seconds)
        }
    }

    static func badRequest(_ code: ErrorCode, _ message: String) -> APIError {
        APIError(.badRequest, code: code, message)
    }

    /// The answer to a request whose HTTP framing broke (or whose client left) while its body was read: 400
    /// `malformed_request`, closing the connection, whose framing can no longer be trusted.
    static func malformedRequest(_ message: String) -> APIError {
        APIError(.badRequest, code: .malformedRequest, message, headers: [.connection: "close"])
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers = headers
        headers[.contentType] = "application/json"
        if let retryAfterSeconds { headers[.retryAfter] = String(retryAfterSeconds) }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }

    /// The JSON body: `{"error": {"code", "message"}}`.
    var body: Data {
        (try? JSONResponse.encoder.encode(ErrorResponseBody(code: code.rawValue, message: message)))
            ?? Data(#"{"error":{"code":"\#(ErrorCode.internalError)","message":""}}"#.utf8)
    }
}
