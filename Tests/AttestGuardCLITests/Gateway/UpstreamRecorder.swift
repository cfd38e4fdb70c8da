import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import Synchronization

/// The app's upstream behind a gateway under test: it records exactly what reaches it (method, request-target as
/// sent, headers, body bytes) and answers 200 `upstream ok`, 404 for targets under `/missing/` (for gateway
/// locations that fall back on an upstream error), and 409 with `X-AttestGuard-Error` under `/api/spoof/`.
final class UpstreamRecorder: Sendable {
    struct Received: Sendable {
        var method: String
        var target: String
        var headers: [(name: String, value: String)]
        var body: [UInt8]

        /// A header's value by name, case-insensitively; `nil` when absent.
        func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }
    }

    let port: Int
    private let log: ReceivedLog
    private let task: Task<Void, any Error>

    private init(port: Int, log: ReceivedLog, task: Task<Void, any Error>) {
        self.port = port
        self.log = log
        self.task = task
    }

    /// Every request received so far, in order.
    var requests: [Received] { log.items.withLock { $0 } }

    /// Starts it on a free loopback port.
    static func start() async throws -> UpstreamRecorder {
        let log = ReceivedLog()
        let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
        let responder = CallbackResponder<BasicRequestContext> { request, context in
            let body = try await request.body.collect(upTo: 1 << 22)
            log.items.withLock { $0.append(Received(
                method: request.method.rawValue, target: request.head.path ?? "",
                headers: request.headers.map { ($0.name.rawName, $0.value) }, body: Array(buffer: body)
            )) }
            if request.head.path?.hasPrefix("/api/spoof/") == true {
                // An upstream that dresses its answer as a gateway refusal, which the gateway must not pass on.
                var headers: HTTPFields = [.contentType: "application/json"]
                headers[HTTPField.Name("X-AttestGuard-Error")!] = "challenge_expired"
                return Response(status: .conflict, headers: headers, body: .init(byteBuffer: ByteBuffer(string: #"{"error":{"code":"challenge_expired","message":"upstream"}}"#)))
            }
            let missing = request.head.path?.hasPrefix("/missing/") == true
            return Response(status: missing ? .notFound : .ok, headers: [.contentType: "text/plain"], body: .init(byteBuffer: ByteBuffer(string: missing ? "upstream missing" : "upstream ok")))
        }
        var logger = Logger(label: "attestguard.tests.upstream")
        logger.logLevel = .critical
        let application = Application(
            responder: responder,
            configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in portContinuation.yield(channel.localAddress?.port ?? 0) },
            logger: logger
        )
        let task = Task { try await application.runService() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next(), port > 0 else {
            task.cancel()
            throw RawConnection.Failure(description: "the upstream recorder did not start")
        }
        return UpstreamRecorder(port: port, log: log, task: task)
    }

    func stop() async {
        task.cancel()
        _ = try? await task.value
    }
}

/// What the upstream received, shared by its responder and the recorder.
private final class ReceivedLog: Sendable {
    let items = Mutex<[UpstreamRecorder.Received]>([])
}
