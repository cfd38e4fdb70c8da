/// The path of a request-target as route policies match it: the query dropped, unreserved characters
/// percent-decoded (`%6F` is `o`, `%2e` is `.`), other escapes kept with upper-case hex (a lone `%` is `%25`), duplicate slashes collapsed,
/// dot segments removed (RFC 3986, 5.2.4), a trailing slash dropped and ASCII letters lower-cased. Every spelling a
/// client can use to reach one resource through a gateway (`/api//x`, `/API/x/`, `/ap%69/x`) has one normalised
/// form, so that no spelling of a required path falls outside its route.
///
/// A gateway passes the request-target on to the upstream as the client sent it. Where the upstream may read those
/// bytes as another path than the normalised one, the policy must not choose a route from the normalised form:
/// ``refusal`` names targets the policy refuses outright (dot segments, a scheme inside the path, a network-path
/// reference), ``isAmbiguous`` those it asks an assertion of whatever their route.
///
/// The bound path of clientData v1 stays the request-target byte for byte as the client sent it; this form is only
/// for choosing a route.
public struct RequestPath: Sendable, Hashable, CustomStringConvertible {
    /// Why a target is refused before any route is chosen: its normalised form drops or moves segments that an
    /// upstream given the raw target may serve.
    public enum Refusal: String, Sendable, Hashable, CustomStringConvertible {
        /// A `.` or `..` segment, spelled plainly or escaped (`%2e%2e`, `.%2E`): the normaliser resolves it, an
        /// upstream may not, or may resolve it against another base.
        case dotSegment = "dot_segment"
        /// `://` inside the path (`/admin/x://h/api`): an absolute-form target has its scheme at the start only.
        case schemeInPath = "scheme_in_path"
        /// A path that starts with `//`: URL parsers read its first segment as a host (`//h/admin` is `/admin`).
        case networkPath = "network_path"

        public var description: String {
            switch self {
            case .dotSegment: "it holds a dot segment (., .., or an escaped spelling of them)"
            case .schemeInPath: "its path holds a scheme (://)"
            case .networkPath: "its path starts with // (a network-path reference)"
            }
        }
    }

    /// The normalised path: starts with `/`, no empty, `.` or `..` segment, no trailing slash but for `/` itself.
    public let normalized: String

    public var description: String { normalized }

    /// Whether servers behind a gateway may read the target as another path than ``normalized``: it holds a `;`
    /// (path parameters: Tomcat and Jetty read `/x/..;/y` as `/x/../y`), a `\\` or an escaped `/` or `\\` (`%2F`,
    /// `%5C`: some servers decode them into separators), or a `#` (a fragment, never part of a request-target). The
    /// policy asks an assertion of such a request whatever its route says (``GatewayPolicySet/decide(host:method:requestTarget:overrides:)``).
    public let isAmbiguous: Bool

    /// Why the policy refuses the target whatever its routes say, or `nil` when the normalised form is the path an
    /// upstream serves.
    public let refusal: Refusal?

    /// The segments of the normalised path (none for `/`).
    public var segments: [Substring] { normalized.split(separator: "/") }

    /// Normalises `target`: an origin-form request-target (`/path?query`). An absolute-form target
    /// (`https://host/path`, the scheme at the very start) is reduced to its path; anything else is read as a path
    /// under `/`.
    public init(requestTarget target: String) {
        var path = Substring(target)
        let fragment = target.contains("#")
        if let query = path.firstIndex(where: { $0 == "?" || $0 == "#" }) { path = path[..<query] }
        if let scheme = Self.absoluteFormScheme(path) {
            let afterAuthority = path[scheme.upperBound...].firstIndex(of: "/") ?? path.endIndex
            path = path[afterAuthority...]
        }
        let decoded = Self.decodingUnreserved(Array(path.utf8))
        isAmbiguous = fragment || decoded.contains(";") || decoded.contains("\\") || decoded.contains("%2F") || decoded.contains("%5C")
        var output: [Substring] = []
        var dotSegment = false
        for segment in decoded.split(separator: "/", omittingEmptySubsequences: true) {
            switch segment {
            case ".": dotSegment = true
            case "..":
                dotSegment = true
                if !output.isEmpty { output.removeLast() }
            default: output.append(segment)
            }
        }
        normalized = "/" + output.joined(separator: "/")
        refusal =
            if dotSegment { .dotSegment }
            else if decoded.contains("://") { .schemeInPath }
            else if decoded.hasPrefix("//") { .networkPath }
            else { nil }
    }

    /// The `scheme://` that opens an absolute-form target (RFC 3986: a letter, then letters, digits, `+`, `-`, `.`),
    /// or `nil`: `://` anywhere else is part of the path.
    private static func absoluteFormScheme(_ path: Substring) -> Range<Substring.Index>? {
        guard let separator = path.range(of: "://"), separator.lowerBound > path.startIndex else { return nil }
        let scheme = path[..<separator.lowerBound]
        guard let first = scheme.first, first.isASCII, first.isLetter else { return nil }
        let allowed = scheme.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == ".") }
        return allowed ? separator : nil
    }

    /// The bytes as text with `%XX` of an unreserved character (ALPHA, DIGIT, `-`, `.`, `_`, `~`) decoded, other
    /// escapes upper-cased, a `%` that starts none escaped as `%25`, and ASCII letters lower-cased.
    static func decodingUnreserved(_ bytes: [UInt8]) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%"), index + 2 < bytes.count, let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2]) {
                let decoded = high << 4 | low
                if isUnreserved(decoded) {
                    output.append(lowercased(decoded))
                } else {
                    output += [UInt8(ascii: "%"), uppercaseHex(high), uppercaseHex(low)]
                }
                index += 3
            } else if byte == UInt8(ascii: "%") {
                // A `%` that starts no escape is written as one, so that no later text can complete it into an escape.
                output += Array("%25".utf8)
                index += 1
            } else {
                output.append(lowercased(byte))
                index += 1
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"): true
        default: false
        }
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    private static func uppercaseHex(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "A") + value - 10
    }
}
