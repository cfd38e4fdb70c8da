/// A route's path in a policy file, matched against a ``RequestPath``: literal segments (compared after the same
/// normalisation as requests), `*` for exactly one segment, and a final `**` for any number of segments, none
/// included (`/api/catalog/**` matches `/api/catalog` and everything below it).
public struct PathPattern: Sendable, Hashable, CustomStringConvertible {
    enum Segment: Sendable, Hashable {
        case literal(Substring)
        case anySegment
    }

    let segments: [Segment]
    let matchesDescendants: Bool
    /// The pattern as written.
    public let text: String

    public var description: String { text }

    /// Parses `text`; `nil` unless it starts with `/` and uses `**` only as its last segment.
    public init?(_ text: String) {
        guard text.hasPrefix("/"), !text.contains("?"), !text.contains("#") else { return nil }
        var parts = text.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        matchesDescendants = parts.last == "**"
        if matchesDescendants { parts.removeLast() }
        guard !parts.contains("**") else { return nil }
        segments = parts.map { part in
            part == "*" ? .anySegment : .literal(Substring(RequestPath(requestTarget: "/" + part).normalized.dropFirst()))
        }
        guard !segments.contains(.literal("")) else { return nil }
        self.text = text
    }

    public func matches(_ path: RequestPath) -> Bool {
        let candidate = path.segments
        guard matchesDescendants ? candidate.count >= segments.count : candidate.count == segments.count else { return false }
        for (segment, part) in zip(segments, candidate) {
            if case .literal(let literal) = segment, literal != part { return false }
        }
        return true
    }

    /// How specific the pattern is, to rank two that match one path: more literal segments first, then more
    /// segments, then exact over descendant patterns.
    var specificity: (Int, Int, Int) {
        (segments.filter { if case .literal = $0 { true } else { false } }.count, segments.count, matchesDescendants ? 0 : 1)
    }
}
