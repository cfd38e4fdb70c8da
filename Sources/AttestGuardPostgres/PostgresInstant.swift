import Foundation
import NIOCore
import PostgresNIO
import AttestGuardStore

/// A `timestamptz` bind rounded to the nearest microsecond, PostgreSQL's precision. PostgresNIO's own `Date`
/// encoding truncates, which can put a time read back from a row one microsecond early: harmless for a range's
/// bound, a repeated or lost entry for a page's position.
struct PostgresInstant: PostgresNonThrowingEncodable {
    /// PostgreSQL's epoch, 2000-01-01T00:00:00Z, in seconds after Foundation's reference date (2001-01-01).
    private static let epochSinceReferenceDate: Double = -31_622_400

    let date: Date

    init(_ date: Date) {
        self.date = date
    }

    static var psqlType: PostgresDataType { .timestamptz }
    static var psqlFormat: PostgresFormat { .binary }

    func encode<JSONEncoder: PostgresJSONEncoder>(into byteBuffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>) {
        // From the reference date, Date's own storage: the finest a Double holds at today's instants (about 0.1 µs).
        let microseconds = ((date.timeIntervalSinceReferenceDate - Self.epochSinceReferenceDate) * 1_000_000).rounded()
        byteBuffer.writeInteger(Int64(exactly: microseconds) ?? (microseconds < 0 ? .min : .max))
    }
}
