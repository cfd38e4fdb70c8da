import Hummingbird
import HTTPTypes

/// Refuses requests whose framing two HTTP implementations may read differently, with the JSON error shape and
/// `X-Request-Id` (the parser's own refusals get theirs from ``HTTP1Framing``): a second `Host` (400: the app is
/// chosen by host, and a gateway may have read the other one), an HTTP/1.1 request without one or with an empty one
/// (400, RFC 9112 3.2), and a transfer coding other than `chunked` (501, as RFC 9112 6.1 asks:
/// `gzip, chunked` would otherwise be read with its coding ignored). Either closes the connection.
struct RequestFramingMiddleware: RouterMiddleware {
    typealias Context = AttestGuardRequestContext

    static let host = HTTPField.Name("Host")!

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        // The first Host becomes the request's authority; any other stays a field.
        if !request.headers[values: Self.host].isEmpty {
            throw APIError.malformedRequest("the request has more than one Host header")
        }
        // Empty: sent so, or an HTTP/1.1 request without one (``HTTP1Framing`` gives it an empty one).
        if request.head.authority?.isEmpty == true {
            throw APIError.malformedRequest("an HTTP/1.1 request needs a Host header naming the server")
        }
        let codings = request.headers[values: .transferEncoding]
            .flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        if let unsupported = codings.first(where: { $0 != "chunked" }) {
            throw APIError(
                .notImplemented, code: .malformedRequest, "the transfer coding \(unsupported.prefix(64)) is not supported: send chunked or a Content-Length",
                headers: [.connection: "close"]
            )
        }
        return try await next(request, context)
    }
}
