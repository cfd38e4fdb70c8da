import PostgresNIO
import Synchronization
import AttestGuardStore

/// The connections one store operation holds, so that its deadline can close them (``withOperationDeadline``).
///
/// postgres-nio's wait for a query's answer ignores task cancellation: a `COMMIT` waiting for a synchronous standby
/// that is gone, or a query on a connection whose host vanished without a reset, would keep its request (and a
/// graceful shutdown) waiting for as long as the server stays silent. Closing the connection fails that wait at once,
/// and the pool drops the closed connection instead of lending it again.
final class OperationConnections: Sendable {
    /// The operation the current task runs for, if any.
    @TaskLocal static var current: OperationConnections?

    private struct State {
        var held: [ObjectIdentifier: PostgresConnection] = [:]
        var closed = false
    }

    private let state = Mutex(State())

    /// Notes that the operation holds `connection`; closes it at once if the deadline has already passed.
    func hold(_ connection: PostgresConnection) {
        let closed = state.withLock { state in
            if !state.closed { state.held[ObjectIdentifier(connection)] = connection }
            return state.closed
        }
        if closed { connection.closeNow() }
    }

    /// Notes that the operation gave `connection` back.
    func release(_ connection: PostgresConnection) {
        _ = state.withLock { $0.held.removeValue(forKey: ObjectIdentifier(connection)) }
    }

    /// Closes every connection the operation holds, and any it takes from now on; returns how many it held.
    ///
    /// The closes start under the lock: a connection the operation releases meanwhile would otherwise go back to the
    /// pool and be lent to another operation before this one closed it. (Starting a close does not wait: the channel
    /// closes on its loop.)
    @discardableResult
    func closeAll() -> Int {
        state.withLock { state in
            state.closed = true
            defer { state.held = [:] }
            for connection in state.held.values { connection.closeNow() }
            return state.held.count
        }
    }
}

extension PostgresClient {
    /// Leases a connection for `body`, known to the current operation's deadline (``OperationConnections``), which
    /// closes it if the deadline passes first.
    func withHeldConnection<Result: Sendable>(_ body: (PostgresConnection) async throws -> Result) async throws -> Result {
        try await withConnection { connection in
            let operation = OperationConnections.current
            operation?.hold(connection)
            defer { operation?.release(connection) }
            return try await body(connection)
        }
    }
}

extension PostgresConnection {
    /// Closes the connection without waiting: its channel closes on its loop, failing whatever waits on it.
    func closeNow() {
        let closing: EventLoopFuture<Void> = close()
        _ = closing
    }
}
