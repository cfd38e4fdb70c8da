/// A decoded CBOR data item (RFC 8949).
///
/// App Attest objects are CBOR maps whose keys are text strings (attestations, assertions) or
/// integers (COSE keys). ``CBOR`` keeps every major type so a caller can tell exactly what it got,
/// and offers typed accessors that answer `nil` for the wrong type instead of trapping.
public indirect enum CBOR: Sendable, Hashable {
    /// Major type 0: an unsigned integer.
    case unsigned(UInt64)
    /// Major type 1: the negative integer `-1 - n`, stored as `n` so the full range fits.
    case negative(UInt64)
    /// Major type 2: a byte string (indefinite-length chunks already joined).
    case bytes([UInt8])
    /// Major type 3: a UTF-8 text string (indefinite-length chunks already joined).
    case text(String)
    /// Major type 4: an array.
    case array([CBOR])
    /// Major type 5: a map, in the order the pairs were encoded. Keys are unique.
    case map([CBORMapEntry])
    /// Major type 6: a tagged item.
    case tagged(UInt64, CBOR)
    /// Major type 7: `false` or `true`.
    case boolean(Bool)
    /// Major type 7: `null`.
    case null
    /// Major type 7: `undefined`.
    case undefined
    /// Major type 7: an unassigned simple value.
    case simple(UInt8)
    /// Major type 7: a half, single or double precision float, widened to `Double`.
    case float(Double)
}

/// One key/value pair of a CBOR map.
public struct CBORMapEntry: Sendable, Hashable {
    public var key: CBOR
    public var value: CBOR

    public init(key: CBOR, value: CBOR) {
        self.key = key
        self.value = value
    }
}

extension CBOR {
    /// The bytes of a byte string, or `nil` for any other type.
    public var bytesValue: [UInt8]? {
        if case .bytes(let value) = self { return value }
        return nil
    }

    /// The text of a text string, or `nil` for any other type.
    public var textValue: String? {
        if case .text(let value) = self { return value }
        return nil
    }

    /// The elements of an array, or `nil` for any other type.
    public var arrayValue: [CBOR]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// The entries of a map, or `nil` for any other type.
    public var mapEntries: [CBORMapEntry]? {
        if case .map(let value) = self { return value }
        return nil
    }

    /// The value as a signed 64-bit integer, or `nil` when it is no integer or does not fit.
    public var integerValue: Int64? {
        switch self {
        case .unsigned(let value):
            return value <= UInt64(Int64.max) ? Int64(value) : nil
        case .negative(let value):
            return value <= UInt64(Int64.max) ? -1 - Int64(value) : nil
        default:
            return nil
        }
    }

    /// A short name of the item's type, for error messages.
    public var typeName: String {
        switch self {
        case .unsigned, .negative: "integer"
        case .bytes: "byte string"
        case .text: "text string"
        case .array: "array"
        case .map: "map"
        case .tagged: "tagged item"
        case .boolean: "boolean"
        case .null: "null"
        case .undefined: "undefined"
        case .simple: "simple value"
        case .float: "float"
        }
    }

    /// Looks up a map value by text key; `nil` when this is no map or the key is absent.
    public subscript(key: String) -> CBOR? {
        self[.text(key)]
    }

    /// Looks up a map value by integer key (COSE style); `nil` when this is no map or the key is absent.
    public subscript(key: Int64) -> CBOR? {
        self[key >= 0 ? .unsigned(UInt64(key)) : .negative(UInt64(-1 - key))]
    }

    /// Looks up a map value by key; `nil` when this is no map or the key is absent.
    public subscript(key: CBOR) -> CBOR? {
        guard case .map(let entries) = self else { return nil }
        return entries.first(where: { $0.key == key })?.value
    }
}
