import AttestCore
import Crypto
public import Foundation

/// Keyed hashes of velocity subjects (contract: user ids and IPs are stored as HMAC-SHA-256 with a configured
/// secret): the first 16 bytes of HMAC-SHA-256(key, dimension NUL value), in hex. The same key on every server
/// process gives the same subject, so counts are shared; without the key, a subject cannot be recovered.
public struct VelocityKeying: Sendable {
    private let key: SymmetricKey

    public init(secret: some DataProtocol) {
        self.key = SymmetricKey(data: Data(secret))
    }

    /// A fixed, public key: for tests and library defaults only, never for production data.
    public static let publicTestKey = VelocityKeying(secret: Data("attestguard-public-test-velocity-key".utf8))

    func subject(_ dimension: String, _ value: String) -> String {
        var message: [UInt8] = []
        message.reserveCapacity(dimension.utf8.count + 1 + value.utf8.count)
        message.append(contentsOf: dimension.utf8)
        message.append(0)
        message.append(contentsOf: value.utf8)
        let code = HMAC<SHA256>.authenticationCode(for: message, using: key)
        return code.withUnsafeBytes { Hex.encode($0.prefix(16)) }
    }
}
