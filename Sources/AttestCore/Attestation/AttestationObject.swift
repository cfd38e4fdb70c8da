/// The CBOR attestation object `DCAppAttestService.attestKey` returns, split into its parts.
///
/// ```
/// { "fmt": "apple-appattest",
///   "attStmt": { "x5c": [credCert, intermediateCert], "receipt": bytes },
///   "authData": bytes }
/// ```
public struct AttestationObject: Sendable, Hashable {
    /// The format name; only `apple-appattest` is verified.
    public let format: String
    /// The DER certificates of `x5c`, leaf first.
    public let certificates: [[UInt8]]
    /// The ATTEST receipt (CMS).
    public let receipt: [UInt8]
    /// The authenticator data bytes.
    public let authenticatorData: [UInt8]

    /// The largest attestation object accepted, in bytes (real ones are about 5.5 KiB).
    public static let maximumSize = 64 * 1024

    /// Decodes an attestation object.
    /// - Throws: ``VerificationError`` `malformed_cbor`, `malformed_attestation` or `unsupported_format`.
    public init(cbor bytes: [UInt8]) throws(VerificationError) {
        guard bytes.count <= Self.maximumSize else {
            throw VerificationError(.malformedAttestation, "attestation of \(bytes.count) bytes exceeds \(Self.maximumSize)")
        }
        let root: CBOR
        do {
            root = try CBORDecoder().decode(bytes)
        } catch {
            throw VerificationError(.malformedCBOR, "attestation object: \(error)")
        }
        guard root.mapEntries != nil else {
            throw VerificationError(.malformedAttestation, "attestation object is a \(root.typeName), not a map")
        }
        guard let format = root["fmt"]?.textValue else {
            throw VerificationError(.malformedAttestation, "\"fmt\" is missing or not text")
        }
        guard format == "apple-appattest" else {
            throw VerificationError(.unsupportedFormat, "fmt is \"\(format)\", expected \"apple-appattest\"")
        }
        guard let statement = root["attStmt"], statement.mapEntries != nil else {
            throw VerificationError(.malformedAttestation, "\"attStmt\" is missing or not a map")
        }
        guard let chain = statement["x5c"]?.arrayValue, !chain.isEmpty else {
            throw VerificationError(.malformedAttestation, "\"attStmt.x5c\" is missing, empty or not an array")
        }
        var certificates: [[UInt8]] = []
        for (index, element) in chain.enumerated() {
            guard let der = element.bytesValue else {
                throw VerificationError(.malformedAttestation, "x5c[\(index)] is a \(element.typeName), not bytes")
            }
            certificates.append(der)
        }
        guard let receipt = statement["receipt"]?.bytesValue else {
            throw VerificationError(.malformedAttestation, "\"attStmt.receipt\" is missing or not bytes")
        }
        guard let authenticatorData = root["authData"]?.bytesValue else {
            throw VerificationError(.malformedAttestation, "\"authData\" is missing or not bytes")
        }
        self.format = format
        self.certificates = certificates
        self.receipt = receipt
        self.authenticatorData = authenticatorData
    }

    /// Assembles an attestation object from its parts (used by the simulator and tests).
    public init(format: String = "apple-appattest", certificates: [[UInt8]], receipt: [UInt8], authenticatorData: [UInt8]) {
        self.format = format
        self.certificates = certificates
        self.receipt = receipt
        self.authenticatorData = authenticatorData
    }

    /// The CBOR encoding, with keys in Apple's order.
    public var cborEncoded: [UInt8] {
        CBOREncoder.encode(
            .map([
                CBORMapEntry(key: .text("fmt"), value: .text(format)),
                CBORMapEntry(
                    key: .text("attStmt"),
                    value: .map([
                        CBORMapEntry(key: .text("x5c"), value: .array(certificates.map { .bytes($0) })),
                        CBORMapEntry(key: .text("receipt"), value: .bytes(receipt)),
                    ])
                ),
                CBORMapEntry(key: .text("authData"), value: .bytes(authenticatorData)),
            ])
        )
    }
}
