public import Foundation
import SQLiteNIO
public import AttestGuardStore

extension SQLiteRiskStore {
    public func addVelocity(_ increments: [VelocityIncrement], flush: VelocityFlush?) async throws {
        guard !increments.isEmpty || flush != nil else { return }
        let statements = SQLiteRowStatements(
            "INSERT INTO velocity_counters (app_id, subject, event, granularity, bucket, count) VALUES",
            rows: increments.map { increment in
                let key = increment.key
                return [.text(key.appId), .text(key.subject), .text(key.event), .integer(key.granularity), .integer(Int(key.bucket)), .integer(Int(increment.count))]
            },
            width: 6,
            "ON CONFLICT (app_id, subject, event, granularity, bucket) DO UPDATE SET count = velocity_counters.count + excluded.count"
        )
        try await transaction { connection in
            try await statements.run(on: connection)
            if let flush {
                _ = try await connection.query(
                    """
                    INSERT INTO velocity_flushes (writer, sequence, flushed_at) VALUES (?1, ?2, ?3)
                    ON CONFLICT (writer) DO UPDATE SET sequence = max(velocity_flushes.sequence, excluded.sequence), flushed_at = excluded.flushed_at
                    """,
                    [.text(flush.writer), .integer(Int(flush.sequence)), SQLiteValues.bind(flush.at)]
                )
            }
        }
    }

    public func velocitySums(appId: String, _ sums: [VelocitySum], writer: String?) async throws -> VelocityReading {
        // One statement reads every sum and the flush record in one snapshot, and pays one visit to SQLite's thread
        // for them all: on this store each statement costs a thread hop each way, more than its reading. Past
        // `sumsPerStatement` sums the statements share a transaction, for the snapshot.
        guard !sums.isEmpty else { return VelocityReading(totals: [], flushedSequence: 0) }
        let chunks = stride(from: 0, to: sums.count, by: Self.sumsPerStatement).map {
            VelocitySumsStatement(appId: appId, sums: Array(sums[$0..<min($0 + Self.sumsPerStatement, sums.count)]), writer: writer)
        }
        let readings: [VelocityReading]
        if chunks.count == 1 {
            readings = [try chunks[0].reading(from: try await query(chunks[0].sql, chunks[0].binds))]
        } else {
            readings = try await transaction { connection in
                var read: [VelocityReading] = []
                for chunk in chunks { read.append(try chunk.reading(from: try await connection.query(chunk.sql, chunk.binds))) }
                return read
            }
        }
        return VelocityReading(totals: readings.flatMap(\.totals), flushedSequence: readings[0].flushedSequence)
    }

    /// The most sums one statement reads (three parameters each): enough for any rule set's sums in one statement,
    /// while bounding one statement's text and parse when a caller asks for thousands.
    static let sumsPerStatement = 1_000

    public func rollUpVelocity(granularity: Int, into coarser: Int, before: Int64, limit: Int) async throws -> Int {
        // The same rows (the first `limit` by rowid) are added to their coarse buckets and deleted, in one transaction.
        let bindings: [SQLiteData] = [.integer(granularity), .integer(coarser), .integer(Int(before)), .integer(limit)]
        return try await transaction { connection in
            _ = try await connection.query(
                """
                INSERT INTO velocity_counters (app_id, subject, event, granularity, bucket, count)
                SELECT app_id, subject, event, ?2, bucket - ((bucket % ?2) + ?2) % ?2, sum(count)
                FROM (SELECT * FROM velocity_counters WHERE granularity = ?1 AND bucket < ?3 ORDER BY rowid LIMIT ?4)
                WHERE true GROUP BY app_id, subject, event, bucket - ((bucket % ?2) + ?2) % ?2
                ON CONFLICT (app_id, subject, event, granularity, bucket) DO UPDATE SET count = velocity_counters.count + excluded.count
                """,
                bindings
            )
            return try await connection.query(
                """
                DELETE FROM velocity_counters WHERE rowid IN (
                    SELECT rowid FROM velocity_counters WHERE granularity = ?1 AND bucket < ?3 ORDER BY rowid LIMIT ?4
                ) RETURNING 1
                """,
                bindings
            ).count
        }
    }

    public func purgeVelocity(granularity: Int, before: Int64) async throws -> Int {
        try await query(
            "DELETE FROM velocity_counters WHERE granularity = ?1 AND bucket < ?2 RETURNING 1",
            [.integer(granularity), .integer(Int(before))]
        ).count
    }

    public func purgeVelocityFlushes(before: Date) async throws -> Int {
        try await query("DELETE FROM velocity_flushes WHERE flushed_at < ?1 RETURNING 1", [SQLiteValues.bind(before)]).count
    }
}

/// One statement reading velocity sums (`VALUES` rows joined to the counters, a row a sum in the order asked; at least
/// one sum) and the writer's flush record beside them. The sums' subjects, events and starts are bound, never spliced
/// into the text.
struct VelocitySumsStatement {
    let sql: String
    let binds: [SQLiteData]
    /// How many sums the statement reads: the rows it must answer.
    let sumCount: Int

    init(appId: String, sums: [VelocitySum], writer: String?) {
        var parameters = SQLiteParameters()
        let app = parameters.bind(.text(appId))
        let writer = parameters.bind(writer.map { .text($0) } ?? .null)
        let asked = Self.askedTable(sums, binding: &parameters)
        sql = """
            WITH \(asked)
            SELECT \(Self.total) AS total, \(Self.flushedSequence(writer: writer)) AS flushed
            \(Self.countedFrom(appId: app))
            ORDER BY asked.i
            """
        self.binds = parameters.values
        self.sumCount = sums.count
    }

    /// The common table `asked (i, subject, event, since)`: one row a sum, `i` its place in the order asked (from 0),
    /// its values bound in `parameters`. Shared with ``SQLiteExactFactsStatement``, which reads the sums beside other
    /// facts.
    static func askedTable(_ sums: [VelocitySum], binding parameters: inout SQLiteParameters) -> String {
        let rows = sums.enumerated().map { index, sum in
            "(\(index), \(parameters.bind(.text(sum.subject))), \(parameters.bind(.text(sum.event))), \(parameters.bind(.integer(Int(sum.since)))))"
        }
        return "asked (i, subject, event, since) AS (VALUES \(rows.joined(separator: ", ")))"
    }

    /// A sum's total over the rows of ``countedFrom(appId:)``: 0 when no counter matches.
    static let total = "coalesce(sum(counted.count), 0)"

    /// The flush record's sequence of the writer whose parameter is `writer` (NULL: none).
    static func flushedSequence(writer: String) -> String {
        "(SELECT sequence FROM velocity_flushes WHERE writer = \(writer))"
    }

    /// The counters of each `asked` sum in the app whose parameter is `appId`, one group a sum.
    static func countedFrom(appId: String) -> String {
        """
        FROM asked LEFT JOIN velocity_counters AS counted
            ON counted.app_id = \(appId) AND counted.subject = asked.subject AND counted.event = asked.event
            AND counted.bucket >= asked.since
        GROUP BY asked.i
        """
    }

    /// The totals (in the order asked) and the flush record's sequence (0: none) of the statement's rows.
    func reading(from rows: [SQLiteRow]) throws -> VelocityReading {
        guard rows.count == sumCount, let first = rows.first else {
            throw StoreError(.queryFailed, "velocity sums: \(rows.count) rows for \(sumCount) sums")
        }
        return VelocityReading(
            totals: rows.map { Int64($0.column("total")?.integer ?? 0) }, flushedSequence: Int64(first.column("flushed")?.integer ?? 0)
        )
    }
}
