import Crypto
import AttestGuardStore

/// The 16-byte id of a velocity series (one app, subject and event; every granularity), exactly as SQL's
/// `velocity_series()` computes it (schema 9). Flushes and reads compute it here and send it as `bytea`: 16 bytes
/// per bucket instead of three strings to parse, and no hashing in PostgreSQL.
enum VelocitySeriesId {
    static func make(appId: String, subject: String, event: String) -> [UInt8] {
        Array(SHA256.hash(data: Array("\(appId)/\(event)/60/\(subject)".utf8)).prefix(16))
    }
}
