#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import AttestVocabulary
import Logging
import Metrics
import NIOCore

/// Pauses accepting connections for a moment when `accept` fails for want of descriptors or memory (EMFILE,
/// ENFILE, ENOBUFS, ENOMEM), so that the listener does not spin.
///
/// NIO leaves a listener whose first `accept` of a round fails registered for reads: the pending connection keeps it
/// readable, and the event loop retries `accept` as fast as it can, a core at 100 % that starves the connections
/// already held. This handler, first in the listener's pipeline, turns reading off on such an error and back on after
/// `pause`; the connections already accepted are served meanwhile, and the waiting ones stay in the listen backlog.
/// Logs at warning at most once a minute; counter `attestguard_http_accept_paused_total`.
final class AcceptPause: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    private let pause: TimeAmount
    private let logger: Logger
    private var paused = false
    private var lastWarning: NIODeadline?

    init(pause: TimeAmount = .milliseconds(200), logger: Logger) {
        self.pause = pause
        self.logger = logger
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let error = error as? IOError, [EMFILE, ENFILE, ENOBUFS, ENOMEM].contains(error.errnoCode), !paused {
            paused = true
            Counter(label: MetricFamily.httpAcceptPaused.name).increment()
            if lastWarning.map({ .now() - $0 > .minutes(1) }) ?? true {
                lastWarning = .now()
                logger.warning(
                    "cannot accept connections: out of file descriptors or memory; pausing accepts (raise ulimit -n or lower server.maxConnections)",
                    metadata: ["errno": .stringConvertible(error.errnoCode)]
                )
            }
            try? context.channel.syncOptions?.setOption(ChannelOptions.autoRead, value: false)
            context.eventLoop.assumeIsolated().scheduleTask(in: pause) { [self] in
                paused = false
                try? context.channel.syncOptions?.setOption(ChannelOptions.autoRead, value: true)
            }
        }
        context.fireErrorCaught(error)
    }
}

extension AcceptPause {
    /// Adds the handler first in a running listener's pipeline.
    static func install(on listener: any Channel, logger: Logger) async throws {
        try await listener.eventLoop.submit {
            try listener.pipeline.syncOperations.addHandler(AcceptPause(logger: logger), position: .first)
        }.get()
    }
}
