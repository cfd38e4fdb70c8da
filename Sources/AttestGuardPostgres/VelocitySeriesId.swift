import Crypto
import AttestGuardStore

/// The 16-byte id of a velocity series (one app, subject and event; every granularity), exactly as SQL's
/// `velocity_series()` computes it (schema 9): the first 16 bytes of SHA-256 over `app/event/60/subject`. Flushes and
/// reads compute it here and send it as `bytea`: 16 bytes per bucket instead of three strings to parse, and no
/// hashing in PostgreSQL.
enum VelocitySeriesId {
    static func make(appId: String, subject: String, event: String) -> [UInt8] {
        digest(appId: appId, subject: subject, event: event).withUnsafeBytes { Array($0.prefix(16)) }
    }

    /// Appends the id to `ids` as one element, with no array of its own.
    static func append(appId: String, subject: String, event: String, to ids: inout ByteaArrayParameter) {
        digest(appId: appId, subject: subject, event: event).withUnsafeBytes { ids.append($0.prefix(16)) }
    }

    /// SHA-256 of `app/event/60/subject`, hashed part by part.
    private static func digest(appId: String, subject: String, event: String) -> SHA256Digest {
        var hasher = SHA256()
        hasher.update(utf8: appId)
        hasher.update(utf8: "/")
        hasher.update(utf8: event)
        hasher.update(utf8: "/60/")
        hasher.update(utf8: subject)
        return hasher.finalize()
    }
}
