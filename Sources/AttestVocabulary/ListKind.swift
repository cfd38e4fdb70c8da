/// What the entries of a rule list are, and so how `x in list("name")` matches: text compared whole, or IP address
/// blocks an address falls inside.
public enum ListKind: String, Sendable, Hashable, CaseIterable, Codable, CustomStringConvertible {
    /// Any text, matched exactly (user ids, bundle versions, country codes).
    case string
    /// IPv4 and IPv6 addresses and CIDR blocks (`203.0.113.0/24`, `2001:db8::/32`); an address matches every block
    /// it falls inside, and an IPv4 block also matches the IPv4-mapped IPv6 form of its addresses.
    case cidr

    public var description: String { rawValue }
}

/// Bounds of a run-time list's entries that every writer checks: the API, the CLI, the console and the rules'
/// `add_to_list` action.
public enum ManagedListEntryLimits {
    /// The longest an entry may live, in seconds (ten years).
    public static let maximumLifetimeSeconds = 10 * 366 * 86_400
}
