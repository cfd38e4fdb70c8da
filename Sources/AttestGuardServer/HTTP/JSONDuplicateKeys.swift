import Foundation

/// Finds an object key written twice in JSON text (`{"userId":"a","userId":"b"}`). Decoders keep one of the two
/// silently, and which one differs between parsers: a gateway that reads the first and a server that reads the last
/// would check different requests. Keys compare as their decoded UTF-8 bytes (`"a"` and `"\u0061"` are one key;
/// canonically equivalent but different byte strings are two).
///
/// The same pass finds a comma just before a closing `}` or `]` (`{"a":1,}`), which RFC 8259 forbids and the
/// platform's decoder accepts: one member list must read the same in every parser.
///
/// One pass over the text with a stack of the open containers; it needs no valid JSON (invalid text is the
/// decoder's to report) and never traps on any input.
enum JSONDuplicateKeys {
    /// What the scan refuses.
    enum Problem: Equatable {
        case duplicateKey(String)
        case trailingComma
    }

    /// The first key found twice in one object, or `nil`.
    static func first(in bytes: some Collection<UInt8>) -> String? {
        if case .duplicateKey(let key) = firstProblem(in: bytes) { return key }
        return nil
    }

    /// The first duplicate key or trailing comma, or `nil`.
    static func firstProblem(in bytes: some Collection<UInt8>) -> Problem? {
        // One entry per open container: the keys seen so far for an object, `nil` for an array.
        var containers: [Set<[UInt8]>?] = []
        var expectingKey = false
        // The last byte outside strings that is not white space.
        var previous: UInt8 = 0
        var index = bytes.startIndex
        while index != bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]"), previous == UInt8(ascii: ",") { return .trailingComma }
            if !(byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D) { previous = byte }
            switch byte {
            case UInt8(ascii: "\""):
                var end = bytes.index(after: index)
                var escaped = false
                var hasEscape = false
                while end != bytes.endIndex {
                    let inner = bytes[end]
                    if escaped {
                        escaped = false
                    } else if inner == UInt8(ascii: "\\") {
                        escaped = true
                        hasEscape = true
                    } else if inner == UInt8(ascii: "\"") {
                        break
                    }
                    end = bytes.index(after: end)
                }
                if expectingKey, let last = containers.indices.last, containers[last] != nil {
                    let raw = Array(bytes[bytes.index(after: index)..<end])
                    let key = hasEscape ? unescaped(raw) : raw
                    if containers[last]!.insert(key).inserted == false {
                        return .duplicateKey(String(decoding: key, as: UTF8.self))
                    }
                    expectingKey = false
                }
                guard end != bytes.endIndex else { return nil }
                index = end
            case UInt8(ascii: "{"):
                containers.append([])
                expectingKey = true
            case UInt8(ascii: "["):
                containers.append(nil)
                expectingKey = false
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                _ = containers.popLast()
                expectingKey = false
            case UInt8(ascii: ","):
                expectingKey = containers.last.map { $0 != nil } ?? false
            case UInt8(ascii: ":"):
                expectingKey = false
            default:
                break
            }
            index = bytes.index(after: index)
        }
        return nil
    }

    /// The bytes of a string token's content with its escapes decoded; the raw bytes when it does not decode.
    private static func unescaped(_ raw: [UInt8]) -> [UInt8] {
        let token = [UInt8(ascii: "\"")] + raw + [UInt8(ascii: "\"")]
        guard let text = try? JSONDecoder().decode(String.self, from: Data(token)) else { return raw }
        return Array(text.utf8)
    }
}
