import AttestCore
import AttestGuardStore
import AttestVocabulary
import Crypto
import Foundation

/// One series of a distinct count: the subjects of one kind (users) seen with one subject of another (this device),
/// in one app. The subject is its keyed hash (``VelocityKeying``), as the members are.
///
/// Its hash is computed once, when it is made: a series is looked up in several maps each time it is used (its id's
/// memo, the pending and in-flight sightings, the minute's seen set), and hashing its strings each time would cost
/// more than the look-ups. Equality still compares the fields, which holds the hash to it.
struct DistinctSeries: Sendable, Hashable {
    let appId: String
    let count: DistinctCount
    /// The keyed hash of the subject counted per.
    let subject: String
    /// The hash of the three fields, under this process's seed.
    private let fieldsHash: Int

    init(appId: String, count: DistinctCount, subject: String) {
        self.appId = appId
        self.count = count
        self.subject = subject
        var hasher = Hasher()
        hasher.combine(appId)
        hasher.combine(count)
        hasher.combine(subject)
        fieldsHash = hasher.finalize()
    }

    static func == (left: DistinctSeries, right: DistinctSeries) -> Bool {
        left.fieldsHash == right.fieldsHash && left.count == right.count && left.appId == right.appId && left.subject == right.subject
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(fieldsHash)
    }

    /// The series' 16-byte id in the store: the first 16 bytes of SHA-256 over the app, what is counted per what and
    /// the subject, NUL-separated (none of them holds a NUL: app ids and dimension names are restricted, the subject is
    /// hex). The ids of the series named lately are kept (``BoundedMemo``): reads and flushes name the same few.
    var id: [UInt8] { Self.ids.value(for: self) }

    /// The ids of the series this process named lately; about 2 MB when full.
    static let ids = BoundedMemo<DistinctSeries, [UInt8]>(capacity: 8_192) { $0.digest }

    /// The id, computed.
    var digest: [UInt8] {
        SHA256.prefix(16, ofUTF8: [appId, "\u{0}", count.per.rawValue, "\u{0}", count.counted.rawValue, "\u{0}", subject])
    }

    /// A member (a counted subject's keyed hash, hex) as the store keeps it: its 16 bytes.
    static func member(_ hash: String) -> [UInt8] {
        Hex.decode(hash) ?? Array(hash.utf8)
    }
}

extension HashedSubjects {
    /// How many of the four subjects the request has: a distinct count needs two.
    var subjectCount: Int {
        (key == nil ? 0 : 1) + (user == nil ? 0 : 1) + (device == nil ? 0 : 1) + (ip == nil ? 0 : 1)
    }

    /// Every series of `appId` and member this request's subjects make: one per distinct count whose two subjects
    /// it has.
    func distinctSightings(appId: String) -> [(series: DistinctSeries, member: String)] {
        DistinctCount.all.compactMap { count in
            guard let subject = value(of: count.per), let member = value(of: count.counted) else { return nil }
            return (DistinctSeries(appId: appId, count: count, subject: subject), member)
        }
    }
}
