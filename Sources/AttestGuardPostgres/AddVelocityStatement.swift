import Foundation
import PostgresNIO
import AttestGuardStore

/// `addVelocity` as a named prepared statement: every process flushes several times a second. The counters and
/// the writer's flush record are written by one statement, so a reader's snapshot holds both or neither. Rows
/// arrive sorted by key (``VelocityFlushRows``) and are upserted in that order, so that concurrent flushes lock
/// buckets in one order and never deadlock.
struct AddVelocityStatement: PostgresPreparedStatement {
    typealias Row = Int64

    static let name = "attestguard_add_velocity_v4"

    static let sql = """
        WITH counters AS (
            INSERT INTO velocity_buckets (series, bucket, granularity, count)
            SELECT s, b, g, c
            FROM unnest($1::bytea[], $2::int8[], $3::int4[], $4::int8[]) WITH ORDINALITY AS u(s, b, g, c, i)
            ORDER BY i
            ON CONFLICT (series, bucket, granularity) DO UPDATE SET count = velocity_buckets.count + excluded.count
            RETURNING 1
        ), flush AS (
            INSERT INTO velocity_flushes (writer, sequence, flushed_at)
            SELECT $5, $6, $7 WHERE $5::text IS NOT NULL
            ON CONFLICT (writer) DO UPDATE SET sequence = greatest(velocity_flushes.sequence, excluded.sequence), flushed_at = excluded.flushed_at
            RETURNING 1
        )
        SELECT count(*) FROM counters
        """

    static let bindingDataTypes: [PostgresDataType] = [.byteaArray, .int8Array, .int4Array, .int8Array, .text, .int8, .timestamptz]

    var rows: [VelocityFlushRows.Row]
    var flush: VelocityFlush?

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 7)
        bindings.append(ByteaArrayParameter(rows) { $0.pointee.series })
        bindings.append(ArrayParameter(rows) { $0.pointee.bucket })
        bindings.append(ArrayParameter(rows) { $0.pointee.granularity })
        bindings.append(ArrayParameter(rows) { $0.pointee.count })
        bindings.append(flush?.writer)
        bindings.append(flush?.sequence)
        bindings.append(flush?.at)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {
        try row.decode(Int64.self)
    }
}

/// A flush's increments keyed as stored (16-byte series id, bucket, granularity), sorted by that key: the one
/// order in which every process's flushes lock buckets.
struct VelocityFlushRows {
    struct Row: Sendable {
        var series: [UInt8]
        var bucket: Int64
        var granularity: Int32
        var count: Int64
    }

    let rows: [Row]

    init(_ increments: [VelocityIncrement]) {
        rows = increments.map { increment in
            let key = increment.key
            return Row(
                series: VelocitySeriesId.make(appId: key.appId, subject: key.subject, event: key.event),
                bucket: key.bucket, granularity: Int32(clamping: key.granularity), count: increment.count
            )
        }.sorted { left, right in
            if left.series != right.series { return left.series.lexicographicallyPrecedes(right.series) }
            return (left.bucket, left.granularity) < (right.bucket, right.granularity)
        }
    }
}
