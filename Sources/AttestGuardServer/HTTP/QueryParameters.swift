import AttestVocabulary
import Foundation
import AttestGuardWire

/// The query of a request target, read strictly: `name=value` pairs split at `&`, names and values
/// percent-decoded to UTF-8 (`+` is a plus sign, not a space). A name given twice, broken percent-encoding or text
/// that is not UTF-8 is 400 `invalid_field`; names a route does not read are ignored.
struct QueryParameters {
    private var values: [String: String] = [:]

    init(_ query: String?) throws {
        guard let query, !query.isEmpty else { return }
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = Self.decode(parts[0]), let value = Self.decode(parts.count == 2 ? parts[1] : "") else {
                throw APIError.badRequest(.invalidField, "the query is not percent-encoded UTF-8")
            }
            guard values.updateValue(value, forKey: name) == nil else {
                throw APIError.badRequest(.invalidField, "\(Self.printable(name)) is given twice in the query")
            }
        }
    }

    /// The value of `name`, as given (possibly empty), or `nil` when the query does not name it.
    subscript(_ name: String) -> String? {
        values[name]
    }

    /// `name` as a whole number (at most nine digits; the engine checks its range), or `nil` when absent.
    func integer(_ name: String) throws -> Int? {
        guard let text = values[name] else { return nil }
        guard (1...9).contains(text.utf8.count), text.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let value = Int(text) else {
            throw APIError.badRequest(.invalidField, "\(name) must be a whole number")
        }
        return value
    }

    /// `name` as an RFC 3339 instant, or `nil` when absent.
    func instant(_ name: String) throws -> Date? {
        guard let text = values[name] else { return nil }
        guard let date = RFC3339.parse(text) else {
            throw APIError.badRequest(.invalidField, "\(name) must be an RFC 3339 time such as 2026-11-22T12:00:00Z")
        }
        return date
    }

    private static func decode(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else { return nil }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x41...0x46: byte - 0x41 + 10
        case 0x61...0x66: byte - 0x61 + 10
        default: nil
        }
    }

    /// A parameter name for an error message: printable ASCII only, at most 64 bytes (never echoing control bytes).
    private static func printable(_ name: String) -> String {
        String(String.UnicodeScalarView(name.unicodeScalars.prefix(64).map { (0x20..<0x7F).contains($0.value) ? $0 : "?" }))
    }
}
