import AttestVocabulary
import Logging
import NIOCore
import NIOHTTP1

/// Answers what swift-nio's HTTP/1.1 parser refuses (a Content-Length beside a Transfer-Encoding, two
/// Content-Lengths, an obs-fold or bare-LF line, a head over the size limits, bytes that are no HTTP) with the API's
/// own error shape: `400 malformed_request`, a JSON body, an `X-Request-Id` and `Connection: close`. Hummingbird
/// would answer a bare 400 without either, so a gateway or an SRE could not tell which request was refused.
///
/// Sits right after the parser. A refusal while no request is being answered is answered here and the connection
/// closed; one that breaks a request's body goes on to the handler reading that body (which answers
/// `malformed_request` itself) and the connection closes after that request's answer, the only one it gets; one that
/// breaks a pipelined request after a whole one is answered here once that one's response has been written, so
/// responses keep their order.
///
/// It also keeps the rules of the request's HTTP version, which the conversion to swift-http-types drops with the
/// version: an HTTP/1.1 request without `Host` gets an empty one, which ``RequestFramingMiddleware`` refuses with 400
/// as RFC 9112 3.2 asks (HTTP/1.0 has no `Host` to require, and health checkers still send it without one); an
/// HTTP/1.0 request that does not ask for keep-alive gets `Connection: close`, so that the connection closes after
/// its answer as its client expects, instead of idling until the idle timeout.
final class HTTP1Framing: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private let logger: Logger
    /// Heads read whose response has not been written to its end.
    private var unanswered = 0
    /// Whether the latest request was read to its end.
    private var requestRead = true
    /// A refusal waiting for the responses before it.
    private var deferred: HTTPParserError?
    /// A request's body broke after its head went on: the connection closes once that request is answered, and
    /// nothing more is written (Hummingbird would answer a bare 400 on top of the answer already given).
    private var bodyBroken = false
    /// The connection is being closed: nothing more is read or written.
    private var refused = false

    init(logger: Logger) {
        self.logger = logger
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refused else { return }
        switch unwrapInboundIn(data) {
        case .head(var head):
            unanswered += 1
            requestRead = false
            var changed = false
            if head.version.major == 1, head.version.minor >= 1, !head.headers.contains(name: "Host") {
                head.headers.add(name: "Host", value: "")
                changed = true
            } else if head.version == .http1_0, !head.headers[canonicalForm: "Connection"].contains(where: { $0.lowercased() == "keep-alive" }) {
                head.headers.replaceOrAdd(name: "Connection", value: "close")
                changed = true
            }
            if head.method == .CONNECT {
                // swift-nio frames every answer to CONNECT without a body (a 2xx one would start a tunnel), so the
                // 405 it gets has no length: closing is what ends it.
                head.headers.replaceOrAdd(name: "Connection", value: "close")
                changed = true
            }
            // A part passed on unchanged keeps its box: wrapping it again would cost a dynamic cast and a copy.
            context.fireChannelRead(changed ? wrapInboundOut(.head(head)) : data)
            return
        case .body:
            break
        case .end:
            requestRead = true
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard !refused else {
            promise?.succeed()
            return
        }
        let part = unwrapOutboundIn(data)
        context.write(data, promise: promise)
        guard case .end = part else { return }
        unanswered = max(0, unanswered - 1)
        guard unanswered == 0 else { return }
        if let error = deferred {
            deferred = nil
            refuse(error, context: context)
        } else if bodyBroken {
            close(context: context)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parserError = error as? HTTPParserError, !refused else {
            context.fireErrorCaught(error)
            return
        }
        switch (unanswered == 0, requestRead) {
        case (true, true):
            // A head broke between requests.
            refuse(parserError, context: context)
        case (true, false):
            // The body of a request already answered broke: there is nobody left to tell.
            close(context: context)
        case (false, true):
            // A pipelined request broke while the one before it is still being answered.
            deferred = parserError
        case (false, false):
            // The body being read broke: its reader answers `malformed_request`, then the connection closes.
            bodyBroken = true
            context.fireErrorCaught(error)
        }
    }

    private func close(context: ChannelHandlerContext) {
        refused = true
        context.flush()
        context.close(promise: nil)
    }

    private func refuse(_ error: HTTPParserError, context: ChannelHandlerContext) {
        let requestId = RequestId.make()
        let apiError = APIError.malformedRequest("the request is not well-formed HTTP/1.1: \(Self.reason(error))")
        var buffer = context.channel.allocator.buffer(capacity: 160)
        buffer.writeBytes(apiError.body)
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "application/json")
        headers.add(name: "Content-Length", value: String(buffer.readableBytes))
        headers.add(name: "X-Request-Id", value: requestId)
        headers.add(name: "Connection", value: "close")
        let head = HTTPResponseHead(version: .http1_1, status: .badRequest, headers: headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { [channel = context.channel] _ in
            channel.close(promise: nil)
        }
        refused = true
        HTTPErrorMetrics.record(.malformedRequest, status: 400)
        logger.info(
            "request refused by the HTTP parser",
            metadata: ["request_id": .string(requestId), "status": "400", "code": .string(ErrorCode.malformedRequest.rawValue), "reason": .string(Self.reason(error))]
        )
    }

    /// What the parser found, in words an operator can act on.
    static func reason(_ error: HTTPParserError) -> String {
        switch error {
        case .headerOverflow: "the request head is larger than the server accepts"
        case .unexpectedContentLength: "a Content-Length the framing does not allow (a second one, or one beside a Transfer-Encoding)"
        case .invalidContentLength: "a Content-Length that is not a number"
        case .lfExpected: "a line that does not end in CRLF"
        case .invalidHeaderToken: "a header line that is not a name, a colon and a value (a folded line, a space before the colon)"
        case .invalidCharactersUsed: "a control character in the request head"
        case .invalidConstant, .invalidVersion: "a request line or line end that is not HTTP/1.1's (a bare LF, another version)"
        case .invalidMethod: "a method that is not a token"
        case .invalidURL, .invalidHost, .invalidPort, .invalidPath, .invalidQueryString, .invalidFragment: "a request target that is not a URI"
        case .invalidChunkSize: "a chunk size that is not hexadecimal"
        default: "the parser refused it (\(error))"
        }
    }
}
