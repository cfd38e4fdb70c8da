/// Seeded hostile request-targets for the gateway policy, and the paths an upstream handed such a target may serve.
///
/// The gateway passes the request-target on as the client sent it, so the policy must decide on a path that every
/// plausible upstream reading of those bytes agrees with. The readings here are written independently of
/// `RequestPath`, so that a normaliser bug does not hide itself.
public enum HostileTargets {
    /// Path pieces that change a path's meaning somewhere: dots plain and escaped, schemes, separators plain and
    /// escaped, path parameters, queries and fragments, case and unreserved escapes, between the segments of
    /// protected and open routes.
    static let pieces = [
        "/", "/", "/", "api", "catalog", "promos", "claim", "admin", "account", "orders", "blog", "z",
        ".", "..", "%2e", "%2E%2e", ".%2e", "%2e.", "x:", "://", "http://h", "//", ";", ";x=1", "%2F", "%5c", "\\",
        "?a=/..", "#", "%41", "Api", "%61pi", "~", "-",
    ]

    /// Where targets start: open, scored and required routes of the shipped policy and the test policies, so that
    /// many targets land on each kind.
    static let starts = ["/", "/api/catalog/", "/api/catalog/x/", "/api/account", "/admin/", "/api/promos/claim/", "/blog/", "/api/"]

    /// `count` targets from `seed`, each starting with `/` (what a gateway accepts as origin form).
    public static func generate(count: Int, seed: UInt64) -> [String] {
        var generator = SplitMix64(seed: seed)
        return (0..<count).map { _ in
            starts.randomElement(using: &generator)! + (0..<Int.random(in: 0...8, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
        }
    }

    /// The clean paths (`/a/b`, lower-cased, no empty, `.` or `..` segment) an upstream may serve for the target it
    /// received: the path with its dot segments resolved (RFC 3986 5.2.4, after decoding `%2e`), the path with dot
    /// segments kept as names, and, for a path that starts with `//`, the path after the first segment (a URL parser's
    /// network-path reading). Escaped separators and `;` stay as they are: the policy answers those with `require`.
    public static func upstreamReadings(of received: String) -> [String] {
        var path = Substring(received)
        if let end = path.firstIndex(where: { $0 == "?" || $0 == "#" }) { path = path[..<end] }
        let text = decodingDots(String(path)).lowercased()
        var readings = [resolved(text), literal(text)]
        if text.hasPrefix("//") {
            let afterHost = text.dropFirst(2).drop { $0 != "/" }
            readings += [resolved(String(afterHost)), literal(String(afterHost))]
        }
        return readings
    }

    private static func decodingDots(_ path: String) -> String {
        path.replacingOccurrences(of: "%2e", with: ".").replacingOccurrences(of: "%2E", with: ".")
    }

    private static func resolved(_ path: String) -> String {
        var output: [Substring] = []
        for segment in path.split(separator: "/", omittingEmptySubsequences: true) {
            if segment == "." { continue }
            if segment == ".." { if !output.isEmpty { output.removeLast() }; continue }
            output.append(segment)
        }
        return "/" + output.joined(separator: "/")
    }

    private static func literal(_ path: String) -> String {
        let segments = path.split(separator: "/", omittingEmptySubsequences: true).map { segment -> Substring in
            segment == "." ? "dot-segment" : segment == ".." ? "dot-dot-segment" : segment
        }
        return "/" + segments.joined(separator: "/")
    }
}
