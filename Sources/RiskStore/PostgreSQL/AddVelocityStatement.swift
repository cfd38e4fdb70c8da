import Foundation
import PostgresNIO

/// `addVelocity` as a named prepared statement: every process flushes several times a second. The counters and
/// the writer's flush record are written by one statement, so a reader's snapshot holds both or neither. The rows
/// are inserted in key order (sorted by PostgreSQL, cheaper than by us), so that concurrent flushes lock buckets
/// in one order and never deadlock. Each bucket is keyed by its series id (`velocity_series()`, schema 9) and
/// granularity.
struct AddVelocityStatement: PostgresPreparedStatement {
    typealias Row = Int64

    static let name = "attestguard_add_velocity_v3"

    static let sql = """
        WITH counters AS (
            INSERT INTO velocity_buckets (series, bucket, granularity, count)
            SELECT velocity_series(a, s, e), b, g, c
            FROM unnest($1::text[], $2::text[], $3::text[], $4::int4[], $5::int8[], $6::int8[]) AS u(a, s, e, g, b, c)
            ORDER BY 1, 2, 3
            ON CONFLICT (series, bucket, granularity) DO UPDATE SET count = velocity_buckets.count + excluded.count
            RETURNING 1
        ), flush AS (
            INSERT INTO velocity_flushes (writer, sequence, flushed_at)
            SELECT $7, $8, $9 WHERE $7::text IS NOT NULL
            ON CONFLICT (writer) DO UPDATE SET sequence = greatest(velocity_flushes.sequence, excluded.sequence), flushed_at = excluded.flushed_at
            RETURNING 1
        )
        SELECT count(*) FROM counters
        """

    static let bindingDataTypes: [PostgresDataType] = [
        .textArray, .textArray, .textArray, .int4Array, .int8Array, .int8Array, .text, .int8, .timestamptz,
    ]

    var increments: [VelocityIncrement]
    var flush: VelocityFlush?

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 9)
        bindings.append(increments.map(\.key.appId))
        bindings.append(increments.map(\.key.subject))
        bindings.append(increments.map(\.key.event))
        bindings.append(increments.map { Int32(clamping: $0.key.granularity) })
        bindings.append(increments.map(\.key.bucket))
        bindings.append(increments.map(\.count))
        bindings.append(flush?.writer)
        bindings.append(flush?.sequence)
        bindings.append(flush?.at)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {
        try row.decode(Int64.self)
    }
}
