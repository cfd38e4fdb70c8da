public import Foundation

/// The request-target an app binds in clientData v1: what URLSession puts on the request line, which a gateway
/// passes on as it received it (nginx `$request_uri`). It is the URL's percent-encoded path (`/` when empty) and,
/// when the URL has a query, `?` and the percent-encoded query: never `URL.path`, which is decoded.
public enum RequestTarget {
    /// The request-target of `components`.
    public static func of(_ components: URLComponents) -> String {
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        guard let query = components.percentEncodedQuery else { return path }
        return path + "?" + query
    }

    /// The request-target of `url`; `nil` for a URL URLComponents cannot read.
    public static func of(_ url: URL) -> String? {
        URLComponents(url: url, resolvingAgainstBaseURL: true).map(of)
    }
}
