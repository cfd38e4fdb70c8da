/// The CBOR assertion object `DCAppAttestService.generateAssertion` returns.
///
/// ```
/// { "signature": bytes (DER ECDSA), "authenticatorData": bytes }
/// ```
public struct AssertionObject: Sendable, Hashable {
    /// The DER-encoded ECDSA P-256 signature.
    public let signature: [UInt8]
    /// The authenticator data: rpIdHash, flags, counter, possibly more bytes.
    public let authenticatorData: [UInt8]

    /// The largest assertion object accepted, in bytes (real ones are about 140).
    public static let maximumSize = 4096

    /// Decodes an assertion object.
    /// - Throws: ``VerificationError`` `malformed_cbor` or `malformed_assertion`.
    public init(cbor bytes: [UInt8]) throws(VerificationError) {
        guard bytes.count <= Self.maximumSize else {
            throw VerificationError(.malformedAssertion, "assertion of \(bytes.count) bytes exceeds \(Self.maximumSize)")
        }
        let root: CBOR
        do {
            root = try CBORDecoder().decode(bytes)
        } catch {
            throw VerificationError(.malformedCBOR, "assertion object: \(error)")
        }
        guard root.mapEntries != nil else {
            throw VerificationError(.malformedAssertion, "assertion object is a \(root.typeName), not a map")
        }
        guard let signature = root["signature"]?.bytesValue else {
            throw VerificationError(.malformedAssertion, "\"signature\" is missing or not bytes")
        }
        guard let authenticatorData = root["authenticatorData"]?.bytesValue else {
            throw VerificationError(.malformedAssertion, "\"authenticatorData\" is missing or not bytes")
        }
        self.signature = signature
        self.authenticatorData = authenticatorData
    }

    /// Assembles an assertion object from its parts (used by the simulator and tests).
    public init(signature: [UInt8], authenticatorData: [UInt8]) {
        self.signature = signature
        self.authenticatorData = authenticatorData
    }

    /// The CBOR encoding, with keys in Apple's order.
    public var cborEncoded: [UInt8] {
        CBOREncoder.encode(
            .map([
                CBORMapEntry(key: .text("signature"), value: .bytes(signature)),
                CBORMapEntry(key: .text("authenticatorData"), value: .bytes(authenticatorData)),
            ])
        )
    }
}
