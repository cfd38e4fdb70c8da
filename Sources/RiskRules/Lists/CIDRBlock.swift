/// A block of IP addresses, `203.0.113.0/24` or `2001:db8::/32`; a bare address is a block of one. Host bits
/// after the prefix are cleared, so `203.0.113.7/24` is the block `203.0.113.0/24`: ``text`` is the one form a
/// list stores and shows.
public struct CIDRBlock: Hashable, Sendable, CustomStringConvertible {
    /// The first address of the block.
    let network: IPAddressBits
    /// The prefix length in the 128-bit space (an IPv4 block's length plus 96).
    let prefix: Int

    /// The block `text` writes, `nil` when it is not an IPv4 or IPv6 address with an optional `/length` within
    /// the family's bits.
    public init?(_ text: some StringProtocol) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let (address, isIPv4) = IPAddressBits.parse(Substring(parts[0])) else { return nil }
        let familyBits = isIPv4 ? 32 : 128
        var length = familyBits
        if parts.count == 2 {
            let digits = parts[1]
            guard !digits.isEmpty, digits.count <= 3, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber),
                let parsed = Int(digits), parsed <= familyBits
            else { return nil }
            length = parsed
        }
        prefix = isIPv4 ? length + IPAddressBits.mappedIPv4Prefix : length
        network = address.masked(to: prefix)
    }

    /// Whether this block was written in IPv4.
    var isIPv4: Bool { network.isMappedIPv4 && prefix >= IPAddressBits.mappedIPv4Prefix }

    /// The canonical text: the network address, and `/length` unless the block is one address.
    public var text: String {
        let length = isIPv4 ? prefix - IPAddressBits.mappedIPv4Prefix : prefix
        let full = isIPv4 ? 32 : 128
        return length == full ? network.text : "\(network.text)/\(length)"
    }

    public var description: String { text }

    /// Whether `address` falls inside the block.
    func contains(_ address: IPAddressBits) -> Bool {
        address.masked(to: prefix) == network
    }
}
