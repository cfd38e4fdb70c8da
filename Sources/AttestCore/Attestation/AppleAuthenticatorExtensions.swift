public import AttestVocabulary

/// iOS 27's authenticator-extension map: the CBOR map App Attest appends to the authenticator data of attestations
/// (after the COSE key) and assertions (after the counter), which says how the running app was distributed and which
/// build it is. Apple asks servers to check both values (Attestation Object Validation Guide, 2026).
///
/// What each shape means, whatever the AT and ED flags say (real attestations carry only AT; real assertions carry AT
/// and usually not ED, so the flags never decide how the bytes are read):
/// - nothing after the fixed part: no map, as every device before iOS 27 sends;
/// - exactly one CBOR map of at most ``maximumSize`` bytes with text keys: Apple's two keys are read with their
///   types (`apple_validation_category_01`: four bytes, little-endian, or an unsigned integer; `apple_bundle_version_01`:
///   text of at most ``maximumBundleVersionLength`` bytes) and any other key is kept by name and not interpreted,
///   since Apple's documentation refuses none;
/// - anything else (not CBOR, another item, more bytes after the map, a key that is not text, one of Apple's keys with
///   another type, a map too large or too deep): `malformed_authenticator_extensions`. The signature covers these
///   bytes, so only the device that signed them can send them.
public struct AppleAuthenticatorExtensions: Sendable, Hashable {
    /// The key of the validation category.
    public static let validationCategoryKey = "apple_validation_category_01"
    /// The key of the bundle version.
    public static let bundleVersionKey = "apple_bundle_version_01"
    /// The largest map accepted, in bytes (Apple's is 61).
    public static let maximumSize = 1024
    /// The longest bundle version accepted, in UTF-8 bytes (`CFBundleVersion` is a few numbers and dots).
    public static let maximumBundleVersionLength = 64
    /// The deepest nesting accepted inside the map (Apple's values are flat).
    private static let limits = CBORDecoder.Limits(maximumDepth: 4, maximumItemCount: 64, maximumInputSize: maximumSize)

    /// How the running app was distributed (`apple_validation_category_01`), when the map has it.
    public var validationCategory: ValidationCategory?
    /// The running build's `CFBundleVersion` (`apple_bundle_version_01`), when the map has it.
    public var bundleVersion: String?
    /// The map's other keys, in the order they came; their values are not interpreted.
    public var otherKeys: [String]

    public init(validationCategory: ValidationCategory? = nil, bundleVersion: String? = nil, otherKeys: [String] = []) {
        self.validationCategory = validationCategory
        self.bundleVersion = bundleVersion
        self.otherKeys = otherKeys
    }

    /// Reads the bytes after the authenticator data's fixed part (and, in an attestation, after the COSE key).
    /// - Returns: `nil` when there are none.
    /// - Throws: ``VerificationError`` `malformed_authenticator_extensions` for any shape but one bounded map.
    public static func parse(_ bytes: ArraySlice<UInt8>) throws(VerificationError) -> AppleAuthenticatorExtensions? {
        guard !bytes.isEmpty else { return nil }
        guard bytes.count <= maximumSize else {
            throw refused("\(bytes.count) bytes after the authenticator data, at most \(maximumSize) accepted")
        }
        let item: CBOR
        do {
            item = try CBORDecoder(limits: limits).decode(Array(bytes))
        } catch {
            throw refused("the bytes after the authenticator data are not one CBOR item: \(error)")
        }
        guard let entries = item.mapEntries else {
            throw refused("the bytes after the authenticator data are a \(item.typeName), not a map")
        }
        var extensions = AppleAuthenticatorExtensions()
        for entry in entries {
            guard let key = entry.key.textValue else {
                throw refused("a key of the extension map is a \(entry.key.typeName), not text")
            }
            switch key {
            case validationCategoryKey: extensions.validationCategory = try category(entry.value)
            case bundleVersionKey: extensions.bundleVersion = try bundleVersion(entry.value)
            default: extensions.otherKeys.append(key)
            }
        }
        return extensions
    }

    /// The map as App Attest writes it (the simulator's devices and tests): Apple's keys first, the category as four
    /// little-endian bytes.
    public var cborEncoded: [UInt8] {
        var entries: [CBORMapEntry] = []
        if let bundleVersion {
            entries.append(CBORMapEntry(key: .text(Self.bundleVersionKey), value: .text(bundleVersion)))
        }
        if let validationCategory {
            let number = validationCategory.number
            let littleEndian = (0..<4).map { UInt8(truncatingIfNeeded: number >> (8 * $0)) }
            entries.append(CBORMapEntry(key: .text(Self.validationCategoryKey), value: .bytes(littleEndian)))
        }
        return CBOREncoder.encode(.map(entries))
    }

    private static func category(_ value: CBOR) throws(VerificationError) -> ValidationCategory {
        switch value {
        case .bytes(let bytes) where bytes.count == 4:
            return ValidationCategory(number: bytes.reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
        case .unsigned(let number) where number <= UInt64(UInt32.max):
            // Apple's prose calls the value a UInt32; its sample carries bytes. Both mean the same number.
            return ValidationCategory(number: UInt32(number))
        default:
            throw refused("\(validationCategoryKey) is a \(value.typeName), not 4 bytes or a 32-bit unsigned integer")
        }
    }

    private static func bundleVersion(_ value: CBOR) throws(VerificationError) -> String {
        guard let text = value.textValue else {
            throw refused("\(bundleVersionKey) is a \(value.typeName), not text")
        }
        guard text.utf8.count <= maximumBundleVersionLength else {
            throw refused("\(bundleVersionKey) is \(text.utf8.count) bytes, at most \(maximumBundleVersionLength) accepted")
        }
        return text
    }

    private static func refused(_ detail: String) -> VerificationError {
        VerificationError(.malformedAuthenticatorExtensions, detail)
    }
}
