public import Crypto

/// Derives P-256 and P-384 private keys, serial numbers and opaque bytes from a seed and a label.
///
/// The simulator is deterministic from its seed: the same seed gives the same CA keys, device keys,
/// certificate serials and receipt tokens. (ECDSA signatures themselves are randomized by the crypto
/// library, so signature bytes differ between runs; everything they sign does not.)
public struct DeterministicKeys: Sendable, Hashable {
    /// The seed every value is derived from.
    public let seed: [UInt8]

    public init(seed: [UInt8]) {
        self.seed = seed
    }

    public init(seed: String) {
        self.init(seed: Array(seed.utf8))
    }

    /// `count` bytes derived from the seed and a label (HKDF-SHA-256).
    public func bytes(_ label: String, count: Int) -> [UInt8] {
        let key = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: seed),
            // The salt keeps its first spelling: changing it would change every key a seed derives.
            salt: Array("AttestGuard AppleSimulator".utf8),
            info: Array(label.utf8),
            outputByteCount: count
        )
        return key.withUnsafeBytes { Array($0) }
    }

    /// A P-256 private key for a label; a derived scalar outside the curve order is re-derived.
    public func p256(_ label: String) -> P256.Signing.PrivateKey {
        for attempt in 0..<64 {
            if let key = try? P256.Signing.PrivateKey(rawRepresentation: bytes("\(label)#\(attempt)", count: 32)) {
                return key
            }
        }
        preconditionFailure("no valid P-256 scalar in 64 derivations")
    }

    /// A P-384 private key for a label; a derived scalar outside the curve order is re-derived.
    public func p384(_ label: String) -> P384.Signing.PrivateKey {
        for attempt in 0..<64 {
            if let key = try? P384.Signing.PrivateKey(rawRepresentation: bytes("\(label)#\(attempt)", count: 48)) {
                return key
            }
        }
        preconditionFailure("no valid P-384 scalar in 64 derivations")
    }

    /// A positive certificate serial number (16 bytes, top bit clear) for a label.
    public func serialNumber(_ label: String) -> [UInt8] {
        var serial = bytes("serial:\(label)", count: 16)
        serial[0] = serial[0] & 0x7F | 0x01
        return serial
    }
}
