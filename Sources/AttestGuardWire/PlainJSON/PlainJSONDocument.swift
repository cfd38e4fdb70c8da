/// A JSON text in the plain shape well-behaved clients send, parsed into a tree that ``PlainJSONDecoder`` decodes.
///
/// The parser is the fast front of the API's JSON reading, written by hand because the profile of the assertion
/// route put Foundation's `JSONDecoder` and the text guards it needs at about a sixth of the server's CPU, and no
/// package on hand parses faster. It takes only what it is certain to read exactly as Foundation's `JSONDecoder`
/// reads it, and *declines* (returns `nil`) everything else: `null`, a key twice in one object (under Swift's string
/// equality, the same one a decoder looks keys up with), text that is not UTF-8 or starts with a byte order mark,
/// a raw control character in a string, an unpaired surrogate escape, a number with an exponent or more than
/// ``maximumNumberLength`` characters, nesting deeper than ``maximumDepth``, and anything that is not RFC 8259 JSON
/// (a trailing comma, leading zeros, bare words). A declined text goes to the slow path, which gives the canonical
/// answer or error; so declining is always safe, and only accepting needs care. The property tests hold the two
/// paths equal.
package struct PlainJSONDocument {
    /// The document's value.
    package let root: PlainJSONValue
    /// How many objects and members the document has: ``PlainJSONObject/ordinal`` and the members' ordinals count
    /// up to these, so a decoder can mark what it read in flat arrays.
    package let objectCount: Int
    package let memberCount: Int

    /// Nesting deeper than this declines: API bodies nest three levels at most, and recursion stays bounded.
    package static let maximumDepth = 32
    /// Numbers longer than this decline, so every accepted number converts exactly with the standard library.
    package static let maximumNumberLength = 20

    /// Parses `bytes`, or returns `nil` when the text is not in the plain shape.
    package init?(parsing bytes: UnsafeRawBufferPointer) {
        var parser = Parser(bytes: bytes)
        parser.skipWhitespace()
        guard let root = parser.value(depth: 0) else { return nil }
        parser.skipWhitespace()
        guard parser.index == bytes.count else { return nil }
        self.root = root
        objectCount = parser.objectCount
        memberCount = parser.memberCount
    }

    /// A recursive-descent parser over the bytes; every method returns `nil` to decline.
    private struct Parser {
        let bytes: UnsafeRawBufferPointer
        var index = 0
        var objectCount = 0
        var memberCount = 0

        init(bytes: UnsafeRawBufferPointer) {
            self.bytes = bytes
        }

        mutating func skipWhitespace() {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x09, 0x0A, 0x0D: index += 1
                default: return
                }
            }
        }

        mutating func value(depth: Int) -> PlainJSONValue? {
            guard index < bytes.count else { return nil }
            switch bytes[index] {
            case UInt8(ascii: "\""): return string().map(PlainJSONValue.string)
            case UInt8(ascii: "{"): return object(depth: depth + 1)
            case UInt8(ascii: "["): return array(depth: depth + 1)
            case UInt8(ascii: "t"): return literal("true") ? .bool(true) : nil
            case UInt8(ascii: "f"): return literal("false") ? .bool(false) : nil
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return number()
            default: return nil
            }
        }

        mutating func literal(_ word: StaticString) -> Bool {
            let length = word.utf8CodeUnitCount
            guard bytes.count - index >= length else { return false }
            for offset in 0..<length where bytes[index + offset] != word.utf8Start[offset] { return false }
            index += length
            return true
        }

        mutating func object(depth: Int) -> PlainJSONValue? {
            guard depth <= PlainJSONDocument.maximumDepth else { return nil }
            let ordinal = objectCount
            objectCount += 1
            index += 1
            var members: [PlainJSONObject.Member] = []
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                index += 1
                return .object(PlainJSONObject(ordinal: ordinal, members: members))
            }
            while true {
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\""), let key = string() else { return nil }
                // Few members per object: a linear look-up beats hashing, and a large object is no hot body.
                guard members.count < 256, !members.contains(where: { $0.key == key }) else { return nil }
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return nil }
                index += 1
                skipWhitespace()
                let memberOrdinal = memberCount
                memberCount += 1
                guard let value = value(depth: depth) else { return nil }
                members.append(PlainJSONObject.Member(key: key, value: value, ordinal: memberOrdinal))
                switch itemEnd(closedBy: UInt8(ascii: "}")) {
                case .another: continue
                case .closed: return .object(PlainJSONObject(ordinal: ordinal, members: members))
                case nil: return nil
                }
            }
        }

        mutating func array(depth: Int) -> PlainJSONValue? {
            guard depth <= PlainJSONDocument.maximumDepth else { return nil }
            index += 1
            var elements: [PlainJSONValue] = []
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                index += 1
                return .array(elements)
            }
            while true {
                guard let element = value(depth: depth) else { return nil }
                elements.append(element)
                switch itemEnd(closedBy: UInt8(ascii: "]")) {
                case .another: continue
                case .closed: return .array(elements)
                case nil: return nil
                }
            }
        }

        /// What follows a member or an element.
        enum ItemEnd {
            /// A comma: another one follows.
            case another
            /// The container's `closer`.
            case closed
        }

        /// Reads past the comma or `closer` after a member or element; `nil` for anything else.
        mutating func itemEnd(closedBy closer: UInt8) -> ItemEnd? {
            skipWhitespace()
            guard index < bytes.count else { return nil }
            switch bytes[index] {
            case UInt8(ascii: ","):
                index += 1
                skipWhitespace()
                return .another
            case closer:
                index += 1
                return .closed
            default:
                return nil
            }
        }

        /// `-? (0 | [1-9][0-9]*) (. [0-9]+)?`, kept as its text for an exact conversion to the type asked for.
        mutating func number() -> PlainJSONValue? {
            let start = index
            if bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, isDigit(bytes[index]) else { return nil }
            if bytes[index] == UInt8(ascii: "0") {
                index += 1
            } else {
                while index < bytes.count, isDigit(bytes[index]) { index += 1 }
            }
            var isInteger = true
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                isInteger = false
                index += 1
                guard index < bytes.count, isDigit(bytes[index]) else { return nil }
                while index < bytes.count, isDigit(bytes[index]) { index += 1 }
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") { return nil }
            guard index - start <= PlainJSONDocument.maximumNumberLength else { return nil }
            let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
            return .number(text, isInteger: isInteger)
        }

        func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

        /// A string token starting at its opening quote, its escapes decoded; `nil` for a raw control character,
        /// an invalid escape, an unpaired surrogate or bytes that are not UTF-8.
        mutating func string() -> String? {
            index += 1
            let start = index
            // Eight bytes at a time up to the word that holds the string's end, an escape or a control character:
            // base64 values make most of an API body.
            if let base = bytes.baseAddress {
                while index + 8 <= bytes.count, !JSONStringBytes.wordHasSpecialByte(base.loadUnaligned(fromByteOffset: index, as: UInt64.self)) {
                    index += 8
                }
            }
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    let text = UTF8Text.string(UnsafeRawBufferPointer(rebasing: bytes[start..<index]))
                    index += 1
                    return text
                }
                if byte == UInt8(ascii: "\\") { return escapedString(from: start) }
                if byte < 0x20 { return nil }
                index += 1
            }
            return nil
        }

        /// The rest of a string that has an escape, from its content's `start`.
        mutating func escapedString(from start: Int) -> String? {
            var decoded = Array(UnsafeRawBufferPointer(rebasing: bytes[start..<index]))
            while index < bytes.count {
                let byte = bytes[index]
                switch byte {
                case UInt8(ascii: "\""):
                    index += 1
                    return UTF8Text.string(decoded)
                case UInt8(ascii: "\\"):
                    index += 1
                    guard index < bytes.count else { return nil }
                    let escape = bytes[index]
                    index += 1
                    switch escape {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): decoded.append(escape)
                    case UInt8(ascii: "b"): decoded.append(0x08)
                    case UInt8(ascii: "f"): decoded.append(0x0C)
                    case UInt8(ascii: "n"): decoded.append(0x0A)
                    case UInt8(ascii: "r"): decoded.append(0x0D)
                    case UInt8(ascii: "t"): decoded.append(0x09)
                    case UInt8(ascii: "u"):
                        guard let scalar = unicodeEscape() else { return nil }
                        decoded.append(contentsOf: UTF8.encode(scalar)!)
                    default:
                        return nil
                    }
                case 0..<0x20:
                    return nil
                default:
                    decoded.append(byte)
                    index += 1
                }
            }
            return nil
        }

        /// The scalar of a `\u` escape whose four digits start at `index`, with its low surrogate's escape when it
        /// is a high surrogate; `nil` for anything unpaired.
        mutating func unicodeEscape() -> Unicode.Scalar? {
            guard let first = hexQuad() else { return nil }
            switch first {
            case 0xD800...0xDBFF:
                guard bytes.count - index >= 2, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else { return nil }
                index += 2
                guard let second = hexQuad(), (0xDC00...0xDFFF).contains(second) else { return nil }
                return Unicode.Scalar(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00))
            case 0xDC00...0xDFFF:
                return nil
            default:
                return Unicode.Scalar(first)
            }
        }

        mutating func hexQuad() -> UInt32? {
            guard bytes.count - index >= 4 else { return nil }
            var value: UInt32 = 0
            for _ in 0..<4 {
                let byte = bytes[index]
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                default: return nil
                }
                value = value << 4 | UInt32(digit)
                index += 1
            }
            return value
        }
    }
}

/// One value of a ``PlainJSONDocument``. There is no `null`: the parser declines it.
package enum PlainJSONValue {
    case string(String)
    /// A number as written, and whether it has no fraction.
    case number(String, isInteger: Bool)
    case bool(Bool)
    case array([PlainJSONValue])
    case object(PlainJSONObject)
}

/// An object of a ``PlainJSONDocument``: its members in the order written, no key twice.
package struct PlainJSONObject {
    /// A member, with its place among all the document's members.
    package struct Member {
        package let key: String
        package let value: PlainJSONValue
        package let ordinal: Int
    }

    /// Its place among the document's objects.
    package let ordinal: Int
    package let members: [Member]

    package func member(_ key: String) -> Member? {
        members.first { $0.key == key }
    }
}
