#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An IP address as 128 bits, IPv4 addresses in their IPv4-mapped IPv6 form (`::ffff:a.b.c.d`), so one table of
/// blocks answers for both families and a client that reaches the server over a dual-stack socket still matches
/// its IPv4 block. Parsing and printing are the C library's `inet_pton` / `inet_ntop`: strict dotted-quad IPv4 and
/// RFC 4291 IPv6 text, no zone ids, no octal or shortened IPv4 forms.
struct IPAddressBits: Hashable, Sendable {
    var high: UInt64
    var low: UInt64

    /// The prefix length of the IPv4-mapped range, added to an IPv4 block's length.
    static let mappedIPv4Prefix = 96
    private static let mappedIPv4High: UInt64 = 0
    private static let mappedIPv4LowTag: UInt64 = 0x0000_FFFF_0000_0000

    init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// The address in `text`, and whether it was written as IPv4; `nil` for anything else.
    static func parse(_ text: Substring) -> (bits: IPAddressBits, isIPv4: Bool)? {
        // The longest IPv6 text (with an embedded IPv4 tail) is 45 characters.
        guard !text.isEmpty, text.utf8.count <= 45 else { return nil }
        let string = String(text)
        if !string.contains(":") {
            var address = in_addr()
            guard inet_pton(AF_INET, string, &address) == 1 else { return nil }
            let value = UInt64(UInt32(bigEndian: address.s_addr))
            return (IPAddressBits(high: mappedIPv4High, low: mappedIPv4LowTag | value), true)
        }
        var bytes = [UInt8](repeating: 0, count: 16)
        guard inet_pton(AF_INET6, string, &bytes) == 1 else { return nil }
        let high = bytes[0..<8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let low = bytes[8..<16].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return (IPAddressBits(high: high, low: low), false)
    }

    /// Whether this is an IPv4-mapped address.
    var isMappedIPv4: Bool { high == Self.mappedIPv4High && low & 0xFFFF_FFFF_0000_0000 == Self.mappedIPv4LowTag }

    /// The address with every bit after the first `prefix` cleared.
    func masked(to prefix: Int) -> IPAddressBits {
        switch prefix {
        case ...0: return IPAddressBits(high: 0, low: 0)
        case 1..<64: return IPAddressBits(high: high & ~(UInt64.max >> UInt64(prefix)), low: 0)
        case 64: return IPAddressBits(high: high, low: 0)
        case 65..<128: return IPAddressBits(high: high, low: low & ~(UInt64.max >> UInt64(prefix - 64)))
        default: return self
        }
    }

    /// The address as text: dotted-quad for an IPv4-mapped address, RFC 5952 IPv6 text otherwise.
    var text: String {
        if isMappedIPv4 {
            let value = UInt32(truncatingIfNeeded: low)
            return "\(value >> 24).\(value >> 16 & 0xFF).\(value >> 8 & 0xFF).\(value & 0xFF)"
        }
        var bytes = [UInt8](repeating: 0, count: 16)
        for index in 0..<8 {
            bytes[index] = UInt8(truncatingIfNeeded: high >> UInt64(56 - 8 * index))
            bytes[8 + index] = UInt8(truncatingIfNeeded: low >> UInt64(56 - 8 * index))
        }
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        guard inet_ntop(AF_INET6, bytes, &buffer, socklen_t(buffer.count)) != nil else { return "::" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
