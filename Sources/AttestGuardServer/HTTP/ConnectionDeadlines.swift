import HummingbirdCore
import NIOCore
import NIOHTTPTypes
import AttestGuardRuntime

/// The read deadlines of one connection: a request's head must arrive whole within
/// ``ConnectionSettings/headerReadTimeout`` of its first byte (the first request's, of the accept: a connection that
/// never sends a byte is closed then, not after the idle timeout, so that silent sockets cannot hold every slot of
/// `maxConnections`) and its body within
/// ``ConnectionSettings/bodyReadTimeout`` of its head; once a graceful shutdown begins, the connection has
/// ``ConnectionSettings/shutdownTimeout`` left. A deadline that passes closes the connection, so that a slow or
/// stalled client holds neither a file descriptor nor the shutdown (a handler reading the body then sees it end early
/// and answers `400 malformed_request` to nobody). Idle connections are Hummingbird's to close
/// (`HTTP1Channel.Configuration.idleTimeout`).
///
/// Two handlers share it: ``RawBytesObserver`` (first in the pipeline) sees the first byte of a request and the
/// shutdown event, ``RequestPartObserver`` (after the HTTP parser) sees the head and the end of each request. Both
/// run on the channel's event loop, as does every timer here.
final class ConnectionDeadlines {
    private enum Phase {
        case waiting
        case head
        case body
    }

    private let settings: ConnectionSettings
    private let channel: any Channel
    private var phase = Phase.waiting
    /// When the connection is closed unless the awaited part arrives; nil while nothing is awaited.
    private var readDeadline: NIODeadline?
    /// The one read timer and when it fires. A request moves ``readDeadline`` (two or three times) without touching
    /// the timer: when the timer fires early it sleeps again until the deadline, and when the deadline comes earlier
    /// than the timer it is rescheduled. Scheduling and cancelling a task on every request costs more than the rest
    /// of these handlers together.
    private var readTimer: Scheduled<Void>?
    private var readTimerFiresAt: NIODeadline?
    private var shutdownTimer: Scheduled<Void>?

    init(settings: ConnectionSettings, channel: any Channel) {
        self.settings = settings
        self.channel = channel
    }

    /// The connection was accepted: its first head must arrive whole in time, counted from now.
    func connectionOpened() {
        guard phase == .waiting, readDeadline == nil else { return }
        phase = .head
        awaitPart(within: settings.headerReadTimeout)
    }

    /// Bytes arrived: between requests, they start a head, which must then arrive whole in time.
    func bytesArrived() {
        guard phase == .waiting else { return }
        phase = .head
        awaitPart(within: settings.headerReadTimeout)
    }

    /// A request's head was parsed: its body must arrive in time.
    func headArrived() {
        phase = .body
        awaitPart(within: settings.bodyReadTimeout)
    }

    /// A request was read whole: nothing is awaited from the client until its next request begins.
    func requestEnded() {
        phase = .waiting
        readDeadline = nil
    }

    /// The server is shutting down: close the connection after the shutdown timeout, whatever it is doing.
    func shutdownBegan() {
        guard shutdownTimer == nil else { return }
        let channel = channel
        shutdownTimer = channel.eventLoop.assumeIsolated().scheduleTask(in: TimeAmount(settings.shutdownTimeout)) {
            channel.close(promise: nil)
        }
    }

    /// The connection closed: no timer may outlive it.
    func cancelAll() {
        readTimer?.cancel()
        shutdownTimer?.cancel()
        readTimer = nil
        readTimerFiresAt = nil
        readDeadline = nil
        shutdownTimer = nil
    }

    private func awaitPart(within timeout: Duration) {
        let deadline = NIODeadline.now() + TimeAmount(timeout)
        readDeadline = deadline
        if let firesAt = readTimerFiresAt, firesAt <= deadline { return }
        readTimer?.cancel()
        scheduleReadTimer(at: deadline)
    }

    private func scheduleReadTimer(at deadline: NIODeadline) {
        readTimerFiresAt = deadline
        readTimer = channel.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) { [self] in
            readTimerFired()
        }
    }

    /// The read timer is due: close the connection if what it awaits is late, sleep again if the deadline moved on,
    /// stop if nothing is awaited (the next request's bytes schedule it again).
    private func readTimerFired() {
        readTimer = nil
        readTimerFiresAt = nil
        guard let deadline = readDeadline else { return }
        if deadline <= .now() {
            channel.close(promise: nil)
        } else {
            scheduleReadTimer(at: deadline)
        }
    }
}

/// Tells ``ConnectionDeadlines`` when bytes arrive and when the server starts shutting down; first in the
/// pipeline, so that it sees the bytes of a head the parser has not finished.
final class RawBytesObserver: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny
    typealias InboundOut = NIOAny

    private let deadlines: ConnectionDeadlines

    init(_ deadlines: ConnectionDeadlines) {
        self.deadlines = deadlines
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { deadlines.connectionOpened() }
    }

    func channelActive(context: ChannelHandlerContext) {
        deadlines.connectionOpened()
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        deadlines.bytesArrived()
        context.fireChannelRead(data)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ChannelShouldQuiesceEvent { deadlines.shutdownBegan() }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        deadlines.cancelAll()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadlines.cancelAll()
    }
}

/// Tells ``ConnectionDeadlines`` when a request's head and end have been parsed.
final class RequestPartObserver: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart

    private let deadlines: ConnectionDeadlines

    init(_ deadlines: ConnectionDeadlines) {
        self.deadlines = deadlines
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head: deadlines.headArrived()
        case .body: break
        case .end: deadlines.requestEnded()
        }
        context.fireChannelRead(data)
    }
}

extension ConnectionDeadlines {
    /// Adds the two observers to a connection whose HTTP/1.1 pipeline is set up: the byte observer first, the part
    /// observer just before Hummingbird's connection state handler (after the parser). Call on the channel's loop.
    static func install(on channel: any Channel, settings: ConnectionSettings) throws {
        let deadlines = ConnectionDeadlines(settings: settings, channel: channel)
        let operations = channel.pipeline.syncOperations
        try operations.addHandler(RawBytesObserver(deadlines), position: .first)
        let state = try operations.handler(type: HTTPConnectionStateHandler.self)
        try operations.addHandler(RequestPartObserver(deadlines), position: .before(state))
    }
}
