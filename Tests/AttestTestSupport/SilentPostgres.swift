import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A loopback server that takes a PostgreSQL login (any role, no password, no TLS) and then never answers a query:
/// a host that hangs without closing its connections, as a stopped PostgreSQL or a pooler waiting for a server
/// connection looks to a client. Connect with `sslmode=disable`.
///
/// Each connection is served on a thread of its own, which reads and drops what the client sends until it closes.
/// Call ``stop()`` when done: it ends the threads, the listener and every connection.
public final class SilentPostgres: Sendable {
    /// The loopback port it listens on.
    public let port: Int
    private let listener: Int32
    private struct State {
        var connections: [Int32] = []
        /// Connections that have sent something after their login (a query waiting for its answer).
        var queried = 0
        var stopped = false
        /// Whether the listener's descriptor is still open (the accepting thread closes it when it ends).
        var listening = true
    }
    private let state = Mutex(State())

    public init() throws {
        (listener, port) = try LoopbackPort.listening(backlog: 16)
        Thread.detachNewThread { [self] in acceptConnections() }
    }

    /// How many connections have logged in and sent a query since it started.
    public var queriedConnections: Int { state.withLock { $0.queried } }

    /// A URL that reaches it as `role`.
    public func url(role: String = "silent") -> String {
        "postgres://\(role)@127.0.0.1:\(port)/silent?sslmode=disable"
    }

    /// Closes the listener and every connection (their clients see the connection end).
    public func stop() {
        // Shut down, not closed: the threads close their own descriptors, so that none is reused while one still
        // reads it. Under the lock, since a connection's thread leaves the list before it closes.
        state.withLock { state in
            state.stopped = true
            if state.listening { shutdown(listener, Int32(SHUT_RDWR)) }
            for connection in state.connections { shutdown(connection, Int32(SHUT_RDWR)) }
        }
    }

    private func acceptConnections() {
        // Closed under the lock, so that stop() never shuts down a descriptor number another socket has taken since.
        defer {
            state.withLock { state in
                state.listening = false
                _ = Glibc.close(listener)
            }
        }
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else {
                if errno == EINTR || errno == ECONNABORTED { continue }
                return
            }
            let taken = state.withLock { state in
                if !state.stopped { state.connections.append(connection) }
                return !state.stopped
            }
            guard taken else {
                _ = Glibc.close(connection)
                return
            }
            Thread.detachNewThread { [self] in serve(connection) }
        }
    }

    /// Answers the startup message with `AuthenticationOk`, `BackendKeyData` and `ReadyForQuery`, then reads without answering.
    private func serve(_ connection: Int32) {
        defer {
            state.withLock { $0.connections.removeAll { $0 == connection } }
            _ = Glibc.close(connection)
        }
        guard let startupLength = readLength(connection), startupLength >= 8, skip(startupLength - 4, from: connection) else { return }
        // 'R' (length 8, 0: authentication ok), 'K' (length 12: process id 1, secret 1; postgres-nio requires it),
        // 'Z' (length 5, 'I': idle).
        let login: [UInt8] = [0x52, 0, 0, 0, 8, 0, 0, 0, 0, 0x4B, 0, 0, 0, 12, 0, 0, 0, 1, 0, 0, 0, 1, 0x5A, 0, 0, 0, 5, 0x49]
        guard login.withUnsafeBytes({ send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == login.count else { return }
        var buffer = [UInt8](repeating: 0, count: 4_096)
        var counted = false
        while true {
            let read = buffer.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
            if read < 0, errno == EINTR { continue }
            guard read > 0 else { return }
            if !counted {
                counted = true
                state.withLock { $0.queried += 1 }
            }
        }
    }

    /// Reads a 4-byte big-endian length.
    private func readLength(_ connection: Int32) -> Int? {
        var bytes = [UInt8](repeating: 0, count: 4)
        var filled = 0
        while filled < 4 {
            let read = bytes.withUnsafeMutableBytes { recv(connection, $0.baseAddress! + filled, 4 - filled, 0) }
            if read < 0, errno == EINTR { continue }
            guard read > 0 else { return nil }
            filled += read
        }
        return bytes.reduce(0) { $0 << 8 | Int($1) }
    }

    /// Reads and drops `count` bytes.
    private func skip(_ count: Int, from connection: Int32) -> Bool {
        var remaining = count
        var buffer = [UInt8](repeating: 0, count: 1_024)
        while remaining > 0 {
            let read = buffer.withUnsafeMutableBytes { recv(connection, $0.baseAddress, min(remaining, $0.count), 0) }
            if read < 0, errno == EINTR { continue }
            guard read > 0 else { return false }
            remaining -= read
        }
        return true
    }
}
