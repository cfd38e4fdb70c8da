import Foundation
public import AttestGuardStore

/// A `postgres://` URL as libpq reads it, several hosts included:
/// `postgres://user:password@h1:5432,h2:5432/database?sslmode=disable&target_session_attrs=read-write`.
///
/// Foundation's `URLComponents` reads one host only (`h1:5432,h2` is no host to it), so the authority is split here.
/// An IPv6 host is written in brackets (`[::1]:5432`); a host without a port uses 5432.
public struct PostgresURL: Sendable, Hashable {
    /// One host of the URL's host list.
    public struct Host: Sendable, Hashable, CustomStringConvertible {
        public var name: String
        public var port: Int

        public init(name: String, port: Int = 5432) {
            self.name = name
            self.port = port
        }

        public var description: String { name.contains(":") ? "[\(name)]:\(port)" : "\(name):\(port)" }
    }

    /// One `key=value` of the query, in the URL's order.
    public struct Parameter: Sendable, Hashable {
        public var name: String
        public var value: String
    }

    public var scheme: String
    public var user: String
    public var password: String?
    public var hosts: [Host]
    /// The database name; `nil` when the path is empty (PostgreSQL then uses the user name).
    public var database: String?
    public var parameters: [Parameter]

    /// Parses `text`, refusing anything that is not a PostgreSQL URL with a user and at least one host.
    public init(parsing text: String) throws(StoreError) {
        let schemes = ["postgres://", "postgresql://"]
        guard let prefix = schemes.first(where: { text.hasPrefix($0) }) else {
            throw Self.invalid("database URL must look like postgres://user:password@host:port/database")
        }
        scheme = String(prefix.dropLast(3))
        let rest = text.dropFirst(prefix.count)
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        var path = rest[authorityEnd...]
        var query: Substring = ""
        if let mark = path.firstIndex(of: "?") {
            query = path[path.index(after: mark)...]
            path = path[..<mark]
        }
        guard let at = authority.lastIndex(of: "@") else { throw Self.invalid("database URL has no user name") }
        let userInfo = authority[..<at]
        let userEnd = userInfo.firstIndex(of: ":") ?? userInfo.endIndex
        guard let user = userInfo[..<userEnd].removingPercentEncoding, !user.isEmpty else {
            throw Self.invalid("database URL has no user name")
        }
        self.user = user
        password = userEnd == userInfo.endIndex ? nil : userInfo[userInfo.index(after: userEnd)...].removingPercentEncoding
        hosts = try authority[authority.index(after: at)...].split(separator: ",", omittingEmptySubsequences: false).map(Self.host)
        let name = path.drop { $0 == "/" }.removingPercentEncoding ?? ""
        database = name.isEmpty ? nil : name
        parameters = query.split(separator: "&").map { pair in
            let equals = pair.firstIndex(of: "=") ?? pair.endIndex
            let value = equals == pair.endIndex ? "" : pair[pair.index(after: equals)...]
            return Parameter(
                name: pair[..<equals].removingPercentEncoding ?? String(pair[..<equals]),
                value: value.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(value)
            )
        }
    }

    /// The value of the last query parameter called `name`.
    public func parameter(_ name: String) -> String? {
        parameters.last { $0.name == name }?.value
    }

    /// The URL again, with `password` in place of the one it has (`nil`: none).
    public func replacingPassword(_ password: String?) -> PostgresURL {
        var url = self
        url.password = password
        return url
    }

    /// The URL as text.
    public var string: String { render(password: password) }

    /// The URL as text with the password replaced by `***`: safe to log.
    public var redacted: String { render(password: password.map { _ in "***" }) }

    private func render(password: String?) -> String {
        var text = scheme + "://" + Self.encode(user, .urlUserAllowed)
        if let password { text += ":" + (password == "***" ? password : Self.encode(password, .urlPasswordAllowed)) }
        text += "@" + hosts.map(\.description).joined(separator: ",")
        text += "/" + Self.encode(database ?? "", .urlPathAllowed)
        if !parameters.isEmpty {
            text += "?" + parameters.map { Self.encode($0.name, .urlQueryAllowed) + "=" + Self.encode($0.value, .urlQueryAllowed) }
                .joined(separator: "&")
        }
        return text
    }

    private static func host(_ text: Substring) throws(StoreError) -> Host {
        var name: Substring
        var port: Substring?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { throw invalid("database URL host \(text) has no closing bracket") }
            name = text[text.index(after: text.startIndex)..<close]
            let after = text[text.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw invalid("database URL host \(text) is malformed") }
                port = after.dropFirst()
            }
        } else if let colon = text.lastIndex(of: ":") {
            name = text[..<colon]
            port = text[text.index(after: colon)...]
        } else {
            name = text
        }
        guard !name.isEmpty else { throw invalid("database URL has an empty host") }
        guard let port else { return Host(name: String(name)) }
        guard let number = Int(port), (1...65_535).contains(number) else {
            throw invalid("database URL host \(text) has no valid port (1-65535)")
        }
        return Host(name: String(name), port: number)
    }

    private static func encode(_ text: String, _ allowed: CharacterSet) -> String {
        text.addingPercentEncoding(withAllowedCharacters: allowed.subtracting(CharacterSet(charactersIn: ":@/?#&=,+"))) ?? text
    }

    private static func invalid(_ detail: String) -> StoreError {
        StoreError(.invalidConfiguration, detail)
    }
}
