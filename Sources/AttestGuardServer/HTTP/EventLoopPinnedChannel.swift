import EventLoopConcurrency
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import AttestGuardRuntime

/// A server child channel that handles each connection on the event loop that owns its socket: it wraps another
/// child channel (HTTP/1.1) and runs the wrapped `handle` with that loop's ``EventLoopTaskExecutor`` as the task's
/// executor preference (``withPreferredTaskExecutor(_:operation:)``, so that store operations under `withDeadline`
/// prefer it too). Reading a request, the handler and writing the response then stay on one thread, and a store
/// answer that arrives on the same loop resumes the handler there.
///
/// The handler's CPU work (rule evaluation, signature checks) runs on the loop too, delaying that loop's other
/// sockets, its PostgreSQL connections' answers among them, by as long: at most one attestation's verification,
/// as long as that work would hold a thread of a separate pool.
struct EventLoopPinnedChannel<Base: ServerChildChannel>: ServerChildChannel {
    typealias Value = Base.Value

    let base: Base
    let executors: EventLoopTaskExecutors
    /// The read and shutdown deadlines installed on every connection (``ConnectionDeadlines``); the parser's refusals
    /// are answered in the API's error shape (``HTTP1Framing``).
    let connections: ConnectionSettings

    init(_ base: Base, executors: EventLoopTaskExecutors, connections: ConnectionSettings) {
        self.base = base
        self.executors = executors
        self.connections = connections
    }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let connections = connections
        return base.setup(channel: channel, logger: logger).flatMapThrowing { value in
            try ConnectionDeadlines.install(on: channel, settings: connections)
            let operations = channel.pipeline.syncOperations
            let parser = try operations.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
            try operations.addHandler(HTTP1Framing(logger: logger), position: .after(parser))
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await withPreferredTaskExecutor(executors.executor(for: value.channel.eventLoop)) {
            await base.handle(value: value, logger: logger)
        }
    }
}

extension HTTPServerBuilder {
    /// HTTP/1.1 with each connection handled on its own event loop (``EventLoopPinnedChannel``), closed after
    /// `connections.idleTimeout` without a request and bounded by ``ConnectionDeadlines``; `group` must be the group
    /// the server runs on.
    static func http1OnConnectionLoops(group: any EventLoopGroup, connections: ConnectionSettings) -> HTTPServerBuilder {
        let executors = EventLoopTaskExecutors(group: group)
        let configuration = HTTP1Channel.Configuration(idleTimeout: TimeAmount(connections.idleTimeout))
        return HTTPServerBuilder { responder in
            EventLoopPinnedChannel(HTTP1Channel(responder: responder, configuration: configuration), executors: executors, connections: connections)
        }
    }
}
