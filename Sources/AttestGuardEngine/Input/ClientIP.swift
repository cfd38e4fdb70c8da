import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The client's IP address as the gateway saw it: an IPv4 or IPv6 address in one canonical form, so that every
/// spelling of one address counts as one subject.
///
/// An IPv4-mapped IPv6 address (`::ffff:192.0.2.1`) is the IPv4 address; IPv6 text is RFC 5952's (lower case,
/// no leading zeros, the longest run of two or more zero groups compressed). Zone ids and anything else
/// `inet_pton` refuses are not addresses. Velocity counts an IPv6 client by its network (``velocitySubject(ipv6PrefixLength:)``),
/// since one subscriber holds a whole /64.
public struct ClientIP: Sendable, Hashable, CustomStringConvertible, Codable {
    /// The address: 4 bytes for IPv4, 16 for IPv6.
    public let bytes: [UInt8]
    /// The canonical text.
    public let text: String

    /// Parses `text`.
    /// - Throws: `invalid_field` unless it is an IPv4 or IPv6 address.
    public init(_ text: String, field: String) throws(EngineError) {
        guard text.utf8.count <= 45, let bytes = Self.parse(text) else {
            throw EngineError.invalid(.invalidField, "\(field) must be an IPv4 or IPv6 address")
        }
        self.init(bytes: bytes)
    }

    private init(bytes: [UInt8]) {
        if bytes.count == 16, bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF {
            self.bytes = Array(bytes[12...])
        } else {
            self.bytes = bytes
        }
        self.text = self.bytes.count == 4 ? self.bytes.map(String.init).joined(separator: ".") : Self.format6(self.bytes)
    }

    public var isIPv6: Bool { bytes.count == 16 }

    public var description: String { text }

    /// What velocity counts the client under: an IPv4 address itself; an IPv6 address's network of
    /// `ipv6PrefixLength` bits as `prefix/length` (the address itself at 128).
    public func velocitySubject(ipv6PrefixLength: Int) -> String {
        guard isIPv6, ipv6PrefixLength < 128 else { return text }
        var masked = bytes
        for index in masked.indices {
            let bitsKept = max(0, min(8, ipv6PrefixLength - index * 8))
            masked[index] &= bitsKept == 0 ? 0 : UInt8(truncatingIfNeeded: 0xFF << (8 - bitsKept))
        }
        return "\(Self.format6(masked))/\(ipv6PrefixLength)"
    }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        let field = decoder.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
        try self.init(text, field: field.isEmpty ? "ip" : field)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(text)
    }

    private static func parse(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            return withUnsafeBytes(of: &v4) { Array($0) }
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 {
            return withUnsafeBytes(of: &v6) { Array($0) }
        }
        return nil
    }

    /// RFC 5952 section 4: lower-case hex groups without leading zeros; the longest run of at least two zero groups
    /// (the first of equal runs) becomes `::`.
    static func format6(_ bytes: [UInt8]) -> String {
        let groups: [UInt16] = (0..<8).map { (index: Int) -> UInt16 in UInt16(bytes[index * 2]) << 8 | UInt16(bytes[index * 2 + 1]) }
        var best = (start: -1, length: 0)
        var run = (start: -1, length: 0)
        for (index, group) in groups.enumerated() {
            if group == 0 {
                run = run.start < 0 ? (index, 1) : (run.start, run.length + 1)
                if run.length > best.length { best = run }
            } else {
                run = (-1, 0)
            }
        }
        let hex = groups.map { String($0, radix: 16) }
        guard best.length >= 2 else { return hex.joined(separator: ":") }
        let head = hex[..<best.start].joined(separator: ":")
        let tail = hex[(best.start + best.length)...].joined(separator: ":")
        return "\(head)::\(tail)"
    }
}
