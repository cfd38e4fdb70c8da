import Hummingbird
import HTTPTypes

/// `HEAD` works wherever `GET` does (RFC 9110, 9.3.2): before routing, the request is turned into a `GET` and
/// answered with that answer's status and headers, `Content-Length` included, and no body. It wraps the whole
/// router (routing happens before a router middleware runs), so every route, and every refusal, answers `HEAD` as
/// it answers `GET`.
struct HeadAsGet<Base: HTTPResponderBuilder>: HTTPResponderBuilder where Base.Responder.Context == AttestGuardRequestContext {
    let base: Base

    func buildResponder() -> Responder {
        Responder(base: base.buildResponder())
    }

    struct Responder: HTTPResponder {
        typealias Context = AttestGuardRequestContext
        let base: Base.Responder

        func respond(to request: Request, context: Context) async throws -> Response {
            guard request.method == .head else { return try await base.respond(to: request, context: context) }
            var head = request.head
            head.method = .get
            let response: Response
            do {
                response = try await base.respond(to: Request(head: head, body: request.body), context: context)
            } catch let error as any HTTPResponseError {
                response = try error.response(from: request, context: context)
            }
            var headers = response.headers
            if let length = response.body.contentLength { headers[.contentLength] = String(length) }
            return Response(status: response.status, headers: headers, body: ResponseBody())
        }
    }
}
