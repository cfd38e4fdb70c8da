import AttestCore
import AttestGuardStore
import Crypto
import AttestVocabulary
public import Foundation

/// Keyed hashes of velocity subjects (contract: user ids and IPs are stored as HMAC-SHA-256 with a configured
/// secret): the first 16 bytes of HMAC-SHA-256(key, dimension NUL value), in hex. The same key on every server
/// process gives the same subject, so counts are shared; without the key, a subject cannot be recovered.
public struct VelocityKeying: Sendable {
    /// One subject to hash: a dimension and its value as the request gave it. Two subjects are the same only when
    /// their bytes are: `String` equality is canonical equivalence, under which an NFC and an NFD spelling of one name
    /// are equal, but the hash is of the bytes and the contract keeps them two subjects.
    private struct Subject: Hashable, Sendable {
        var dimension: VelocityDimension
        var value: String

        static func == (left: Subject, right: Subject) -> Bool {
            guard left.dimension == right.dimension, left.value.utf8.count == right.value.utf8.count else { return false }
            // Compared as two byte buffers: the generic `elementsEqual` of two UTF-8 views steps an index a byte at
            // a time.
            var leftValue = left.value, rightValue = right.value
            return leftValue.withUTF8 { leftBytes in rightValue.withUTF8 { leftBytes.elementsEqual($0) } }
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(dimension)
            hasher.combine(value.utf8.count)
            let hashed: Void? = value.utf8.withContiguousStorageIfAvailable { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
            if hashed == nil { for byte in value.utf8 { hasher.combine(byte) } }
        }
    }

    /// How many leading bits of an IPv6 address name its client (64: a subscriber's network; 128: the address).
    public let ipv6PrefixLength: Int
    /// The hashes of the subjects named lately (at most 8,192; about 2 MB when full): a verdict hashes up to four
    /// subjects, an HMAC of three SHA-256 blocks each, mostly the same while a key, user or device is active. The
    /// values it keeps are ones the process already holds while it answers, and the process holds the key that
    /// makes the hashes, so keeping them in memory reveals nothing a look at the process would not.
    private let hashes: BoundedMemo<Subject, String>

    public init(secret: some DataProtocol, ipv6PrefixLength: Int = 64) {
        // HMAC state with the key already absorbed: each hash copies it (the digest state is copy-on-write).
        let keyed = HMAC<SHA256>(key: SymmetricKey(data: Data(secret)))
        self.ipv6PrefixLength = ipv6PrefixLength
        hashes = BoundedMemo(capacity: 8_192) { Self.keyedHash($0, keyed: keyed) }
    }

    /// A fixed, public key: for tests and library defaults only, never for production data.
    public static let publicTestKey = VelocityKeying(secret: Data("attestguard-public-test-velocity-key".utf8))

    func subject(_ dimension: VelocityDimension, _ value: String) -> String {
        hashes.value(for: Subject(dimension: dimension, value: value))
    }

    /// The first 16 bytes of HMAC-SHA-256(key, dimension NUL value), in hex.
    private static func keyedHash(_ subject: Subject, keyed: HMAC<SHA256>) -> String {
        // One update with the whole message: each call goes through swift-crypto's generic `DataProtocol` path.
        let name = subject.dimension.rawValue
        let value = subject.value
        var message: [UInt8] = []
        message.reserveCapacity(name.utf8.count + 1 + value.utf8.count)
        message.append(contentsOf: name.utf8)
        message.append(0)
        message.append(contentsOf: value.utf8)
        var mac = keyed
        mac.update(data: message)
        return mac.finalize().withUnsafeBytes { Hex.encode($0.prefix(16)) }
    }

    /// Every subject of a request, hashed once for recording, reading and the decision log.
    func hash(_ subjects: VelocitySubjects) -> HashedSubjects {
        HashedSubjects(
            key: subjects.key.map { subject(.key, $0.base64EncodedString()) },
            user: subjects.user.map { subject(.user, $0) },
            device: subjects.device.map { subject(.device, $0) },
            ip: subjects.ip.map { subject(.ip, $0.velocitySubject(ipv6PrefixLength: ipv6PrefixLength)) }
        )
    }
}

/// A request's velocity subjects as the store keeps them: keyed hashes (``VelocityKeying``).
struct HashedSubjects: Sendable, Hashable {
    var key: String?
    var user: String?
    var device: String?
    var ip: String?

    /// The hash of one dimension, if the request has it.
    func value(of dimension: VelocityDimension) -> String? {
        switch dimension {
        case .key: key
        case .user: user
        case .device: device
        case .ip: ip
        }
    }
}
