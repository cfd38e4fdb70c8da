import Foundation
import PostgresNIO
import AttestGuardStore

/// `addDistinctSightings` as a named prepared statement: every process writes its sightings every second or so.
/// Rows arrive sorted by key, one per key, so that concurrent writers lock rows in one order and never deadlock,
/// and no statement meets its own row twice. A sighting moves the row's minute forward, never back.
struct AddDistinctSightingsStatement: PostgresPreparedStatement {
    typealias Row = Int64

    static let name = "attestguard_add_distinct_sightings_v1"

    static let sql = """
        WITH written AS (
            INSERT INTO distinct_sightings (series, member, last_seen)
            SELECT s, m, t FROM unnest($1::bytea[], $2::bytea[], $3::int8[]) WITH ORDINALITY AS u(s, m, t, i)
            ORDER BY i
            ON CONFLICT (series, member) DO UPDATE SET last_seen = excluded.last_seen
            WHERE distinct_sightings.last_seen < excluded.last_seen
            RETURNING 1
        )
        SELECT count(*) FROM written
        """

    static let bindingDataTypes: [PostgresDataType] = [.byteaArray, .byteaArray, .int8Array]

    /// One sighting per series and member (the latest), sorted by them.
    let sightings: [DistinctSighting]

    init(_ sightings: [DistinctSighting]) {
        var latest: [DistinctSighting] = []
        for sighting in sightings.sorted(by: Self.precedes) {
            if let last = latest.last, last.series == sighting.series, last.member == sighting.member {
                latest[latest.count - 1].lastSeen = max(last.lastSeen, sighting.lastSeen)
            } else {
                latest.append(sighting)
            }
        }
        self.sightings = latest
    }

    /// Series, then member, in byte order. A flush after a minute turns sorts every active pair, thousands at a
    /// time, so the bytes are compared with `memcmp` rather than element by element.
    private static func precedes(_ left: DistinctSighting, _ right: DistinctSighting) -> Bool {
        let series = byteOrder(left.series, right.series)
        return series != 0 ? series < 0 : byteOrder(left.member, right.member) < 0
    }

    /// Negative, zero or positive as `left` comes before, equals or comes after `right` in lexicographic byte order
    /// (a prefix first).
    static func byteOrder(_ left: [UInt8], _ right: [UInt8]) -> Int {
        let common = min(left.count, right.count)
        let order = common == 0 ? 0 : left.withUnsafeBytes { left in
            right.withUnsafeBytes { right in Int(memcmp(left.baseAddress!, right.baseAddress!, common)) }
        }
        return order != 0 ? order : left.count - right.count
    }

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 3)
        bindings.append(ByteaArrayParameter(sightings) { $0.pointee.series })
        bindings.append(ByteaArrayParameter(sightings) { $0.pointee.member })
        bindings.append(ArrayParameter(sightings) { $0.pointee.lastSeen })
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {
        try row.decode(Int64.self)
    }
}
