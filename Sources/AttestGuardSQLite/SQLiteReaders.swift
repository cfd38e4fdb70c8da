import EventLoopConcurrency
import Logging
import SQLiteNIO
import Synchronization

/// Read-only connections beside the store's one writing connection, for the verdicts' facts. The writing connection
/// runs one statement at a time, and each is a hop to SQLiteNIO's thread and back during which it does nothing else:
/// a verdict's read waited behind every commit and flush. In WAL mode readers on connections of their own run beside
/// the writer, each from the snapshot of the last commit when it starts, so a read issued after a commit sees it.
final class SQLiteReaders: Sendable {
    /// One connection, used by one statement at a time (SQLiteNIO does not serialise its handle's users).
    private struct Reader: Sendable {
        let connection: SQLiteConnection
        let gate: AsyncSerialGate
    }

    private let readers: [Reader]
    private let next = Atomic<UInt>(0)

    /// How many read connections a store opens: reads on more connections than cores would only wait for a core.
    static let count = 2

    private init(readers: [Reader]) {
        self.readers = readers
    }

    /// Opens ``count`` read-only connections to the database at `path`, which must exist with this build's schema.
    static func open(path: String, logger: Logger) async throws -> SQLiteReaders {
        var readers: [Reader] = []
        do {
            for _ in 0..<count {
                let (connection, _) = try await SQLiteDecisionLogReader.openReadOnly(path: path, logger: logger)
                readers.append(Reader(connection: connection, gate: AsyncSerialGate()))
            }
        } catch {
            for reader in readers { try? await reader.connection.close() }
            throw error
        }
        return SQLiteReaders(readers: readers)
    }

    /// Runs one read-only statement on the next connection in turn.
    func query(_ sql: String, _ binds: [SQLiteData]) async throws -> [SQLiteRow] {
        let reader = readers[Int(next.wrappingAdd(1, ordering: .relaxed).oldValue % UInt(readers.count))]
        return try await reader.gate.run { try await reader.connection.query(sql, binds) }
    }

    /// Closes every connection, each after the statement it runs.
    func close() async {
        for reader in readers {
            try? await reader.gate.run { try await reader.connection.close() }
        }
    }
}
