/// The fixed header of WebAuthn authenticator data as App Attest uses it, and what follows it.
///
/// ```
/// rpIdHash (32) | flags (1) | signCount (4, big-endian) | remainder (attested credential data, extensions)
/// ```
/// Assertions carry flags 0x40 on real devices although no attested credential data follows, so the
/// flags never decide how the remainder is parsed: attestations parse it with ``AttestedCredentialData``.
public struct AuthenticatorData: Sendable, Hashable {
    /// The authenticator data flags byte.
    public struct Flags: OptionSet, Sendable, Hashable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        public static let userPresent = Flags(rawValue: 0x01)
        public static let userVerified = Flags(rawValue: 0x04)
        public static let attestedCredentialData = Flags(rawValue: 0x40)
        public static let extensionData = Flags(rawValue: 0x80)
    }

    /// The length of the fixed header.
    public static let headerLength = 37

    /// The bytes exactly as received; hashes are always taken over these.
    public let rawValue: [UInt8]
    /// SHA-256 of the App ID.
    public var rpIdHash: ArraySlice<UInt8> { rawValue[0..<32] }
    /// The flags byte.
    public var flags: Flags { Flags(rawValue: rawValue[32]) }
    /// The signature counter (zero in attestations).
    public let signCount: UInt32
    /// Everything after the 37-byte header.
    public var remainder: ArraySlice<UInt8> { rawValue[Self.headerLength...] }

    /// Parses authenticator data; anything after the header is kept as ``remainder``.
    /// - Throws: ``VerificationError`` `malformed_authenticator_data` when shorter than 37 bytes.
    public init(_ bytes: [UInt8]) throws(VerificationError) {
        guard bytes.count >= Self.headerLength else {
            throw VerificationError(.malformedAuthenticatorData, "authenticator data is \(bytes.count) bytes, at least 37 needed")
        }
        self.rawValue = bytes
        self.signCount = UInt32(bytes[33]) << 24 | UInt32(bytes[34]) << 16 | UInt32(bytes[35]) << 8 | UInt32(bytes[36])
    }
}
