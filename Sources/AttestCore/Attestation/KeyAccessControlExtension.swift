public import SwiftASN1

/// The credential certificate's key access-control extension, 1.2.840.113635.100.8.6: the access-control policy the
/// Secure Enclave enforces for the attested key. Apple's 2026 certificates carry it (the iOS 27 validation-guide
/// sample does, and macOS 27 writes it for Mac keys) as a DER `SEQUENCE` holding one context-tagged, explicitly
/// tagged `OCTET STRING` (`[3]` in Apple's sample) whose octets are the encoded policy.
///
/// Apple documents no structure for the policy, so it is informational: read leniently, kept as bytes, shown by
/// `attestguard verify attestation`, never a reason to refuse. Its OID is one the chain validation understands when a
/// certificate marks it critical (``AppAttestExtensionsPolicy``).
public enum KeyAccessControlExtension {
    /// 1.2.840.113635.100.8.6.
    public static let oid: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 8, 6]

    /// The policy octets of the extension's value, or `nil` for a value of another shape.
    static func policy(fromExtensionValue value: ArraySlice<UInt8>?) -> [UInt8]? {
        guard let value, let root = try? DER.parse(value), root.identifier == .sequence,
            case .constructed(let children) = root.content
        else { return nil }
        var iterator = children.makeIterator()
        guard let tagged = iterator.next(), iterator.next() == nil, tagged.identifier.tagClass == .contextSpecific,
            case .constructed(let inner) = tagged.content
        else { return nil }
        var innerIterator = inner.makeIterator()
        guard let octets = innerIterator.next(), innerIterator.next() == nil, let policy = try? ASN1OctetString(derEncoded: octets) else {
            return nil
        }
        return Array(policy.bytes)
    }
}
