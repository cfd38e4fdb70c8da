public import AttestVocabulary

/// The entries of one list, indexed for `x in list("name")`: a hash of whole texts for a `string` list; for a `cidr`
/// list, one hash of networks per prefix length in use, so a lookup masks the address once per length (at most 129)
/// instead of scanning every block. Each entry may expire: an expired entry no longer matches, whenever the
/// contents were read.
public struct ListContents: Sendable {
    /// One entry: its stored form (``ListEntryText``) and when it stops matching (seconds since 1970; `nil`: never).
    public struct Entry: Sendable, Hashable {
        public var value: String
        public var expiresAt: Double?

        public init(value: String, expiresAt: Double? = nil) {
            self.value = value
            self.expiresAt = expiresAt
        }
    }

    public let kind: ListKind
    /// How many entries the contents hold, expired ones included.
    public let count: Int
    private let texts: [String: Double]
    private let blocks: [Int: [IPAddressBits: Double]]
    /// The prefix lengths in use, longest first.
    private let prefixes: [Int]

    /// Contents of `kind` from entries in their stored form; an entry that is not (a `cidr` entry that is no block)
    /// is skipped, and of two entries with one value the later expiry counts.
    public init(kind: ListKind, entries: [Entry]) {
        self.kind = kind
        var texts: [String: Double] = [:]
        var blocks: [Int: [IPAddressBits: Double]] = [:]
        for entry in entries {
            let expiry = entry.expiresAt ?? .infinity
            switch kind {
            case .string:
                texts[entry.value] = max(texts[entry.value] ?? -.infinity, expiry)
            case .cidr:
                guard let block = CIDRBlock(entry.value) else { continue }
                blocks[block.prefix, default: [:]][block.network] = max(blocks[block.prefix]?[block.network] ?? -.infinity, expiry)
            }
        }
        self.texts = texts
        self.blocks = blocks
        self.prefixes = blocks.keys.sorted(by: >)
        self.count = kind == .string ? texts.count : blocks.values.reduce(0) { $0 + $1.count }
    }

    /// Whether `text` is in the list at `now` (seconds since 1970): equal to an entry of a `string` list, or an
    /// address inside a block of a `cidr` list (text that is no address is in no block).
    public func contains(_ text: String, at now: Double) -> Bool {
        switch kind {
        case .string:
            guard let expiry = texts[text] else { return false }
            return expiry > now
        case .cidr:
            guard !prefixes.isEmpty, let (address, _) = IPAddressBits.parse(Substring(text)) else { return false }
            // An IPv4 address is held IPv4-mapped; an IPv6 block shorter than the mapped range (`::/0`) is no IPv4
            // block, so it does not take IPv4 clients.
            let shortest = address.isMappedIPv4 ? IPAddressBits.mappedIPv4Prefix : 0
            for prefix in prefixes where prefix >= shortest {
                if let expiry = blocks[prefix]?[address.masked(to: prefix)], expiry > now { return true }
            }
            return false
        }
    }
}
