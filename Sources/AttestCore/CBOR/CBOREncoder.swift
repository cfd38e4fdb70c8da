/// Encodes ``CBOR`` items with definite lengths and the shortest argument form.
///
/// The simulator mints App Attest objects with it, and tests and fuzz seeds build inputs with it.
/// Map entries keep the order given (App Attest does not require canonical key order).
public enum CBOREncoder {
    /// Encodes one item.
    public static func encode(_ item: CBOR) -> [UInt8] {
        var output: [UInt8] = []
        append(item, to: &output)
        return output
    }

    /// Appends the encoding of one item to `output`.
    public static func append(_ item: CBOR, to output: inout [UInt8]) {
        switch item {
        case .unsigned(let value):
            appendHead(majorType: 0, argument: value, to: &output)
        case .negative(let value):
            appendHead(majorType: 1, argument: value, to: &output)
        case .bytes(let value):
            appendHead(majorType: 2, argument: UInt64(value.count), to: &output)
            output.append(contentsOf: value)
        case .text(let value):
            let utf8 = Array(value.utf8)
            appendHead(majorType: 3, argument: UInt64(utf8.count), to: &output)
            output.append(contentsOf: utf8)
        case .array(let elements):
            appendHead(majorType: 4, argument: UInt64(elements.count), to: &output)
            for element in elements { append(element, to: &output) }
        case .map(let entries):
            appendHead(majorType: 5, argument: UInt64(entries.count), to: &output)
            for entry in entries {
                append(entry.key, to: &output)
                append(entry.value, to: &output)
            }
        case .tagged(let tag, let content):
            appendHead(majorType: 6, argument: tag, to: &output)
            append(content, to: &output)
        case .boolean(let value):
            output.append(value ? 0xF5 : 0xF4)
        case .null:
            output.append(0xF6)
        case .undefined:
            output.append(0xF7)
        case .simple(let value):
            if value < 24 {
                output.append(0xE0 | value)
            } else {
                output.append(contentsOf: [0xF8, value])
            }
        case .float(let value):
            output.append(0xFB)
            withUnsafeBytes(of: value.bitPattern.bigEndian) { output.append(contentsOf: $0) }
        }
    }

    /// Appends an initial byte and its argument in the shortest form.
    public static func appendHead(majorType: UInt8, argument: UInt64, to output: inout [UInt8]) {
        let type = majorType << 5
        switch argument {
        case 0..<24:
            output.append(type | UInt8(argument))
        case 24...0xFF:
            output.append(contentsOf: [type | 24, UInt8(argument)])
        case 0x100...0xFFFF:
            output.append(type | 25)
            withUnsafeBytes(of: UInt16(argument).bigEndian) { output.append(contentsOf: $0) }
        case 0x1_0000...0xFFFF_FFFF:
            output.append(type | 26)
            withUnsafeBytes(of: UInt32(argument).bigEndian) { output.append(contentsOf: $0) }
        default:
            output.append(type | 27)
            withUnsafeBytes(of: argument.bigEndian) { output.append(contentsOf: $0) }
        }
    }
}
