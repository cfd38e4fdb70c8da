import Crypto
import AttestGuardStore

/// The 16-byte id of a velocity series (one app, subject and event; every granularity), exactly as SQL's
/// `velocity_series()` computes it (schema 9): the first 16 bytes of SHA-256 over `app/event/60/subject`. Flushes and
/// reads compute it here and send it as `bytea`: 16 bytes per bucket instead of three strings to parse, and no
/// hashing in PostgreSQL. The ids of the series named lately are kept (``BoundedMemo``): a verdict reads about ten
/// sums, and a flush writes the same series again.
enum VelocitySeriesId {
    /// One series: what its id is computed from.
    struct Series: Hashable, Sendable {
        var appId: String
        var subject: String
        var event: String
    }

    /// The ids of the series this process named lately; about 2 MB when full.
    static let ids = BoundedMemo<Series, [UInt8]>(capacity: 8_192) { digest(of: $0) }

    static func make(appId: String, subject: String, event: String) -> [UInt8] {
        ids.value(for: Series(appId: appId, subject: subject, event: event))
    }

    /// Appends the id to `array` as one element.
    static func append(appId: String, subject: String, event: String, to array: inout ByteaArrayParameter) {
        array.append(make(appId: appId, subject: subject, event: event))
    }

    /// The first 16 bytes of SHA-256 of `app/event/60/subject`.
    static func digest(of series: Series) -> [UInt8] {
        SHA256.prefix(16, ofUTF8: [series.appId, "/", series.event, "/60/", series.subject])
    }
}
