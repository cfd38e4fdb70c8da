import AttestTestSupport
import Foundation
import HTTPTypes
import Testing

/// The console's run-time list pages: a key for every app sees the lists; one that may change them gets forms that
/// carry the session's token, and the change is in the next verdict; a form without the token, with another
/// session's, or from another site is refused and changes nothing; a key limited to some apps sees no list.
@Suite("HTTP: the console's run-time list pages and forms")
struct ConsoleListRouteTests {
    static let readerKey = "test-list-reader-key-0123456789"

    static func environment() throws -> [String: String] {
        var environment = try ConsoleRouteTests.environment()
        environment["ATTESTGUARD_API_KEYS_NAMES"] = (environment["ATTESTGUARD_API_KEYS_NAMES"] ?? "gateway,narrow,operator,analyst") + ",reader"
        environment["ATTESTGUARD_API_KEYS_READER_SECRET_ENV"] = "TEST_LIST_READER_KEY"
        environment["ATTESTGUARD_API_KEYS_READER_SCOPES"] = "analyst"
        environment["TEST_LIST_READER_KEY"] = readerKey
        return environment
    }

    /// The value of the first hidden `csrf` field of a page.
    static func token(in html: String) -> String? {
        guard let range = html.range(of: "name=\"csrf\" value=\"") else { return nil }
        return String(html[range.upperBound...].prefix { $0 != "\"" })
    }

    static func post(_ api: APIClient, _ path: String, _ fields: [(String, String)], cookie: String, headers: HTTPFields = [:]) async throws -> APIClient.Reply {
        let body = fields.map { name, value in
            "\(name)=\(value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? value)"
        }.joined(separator: "&")
        var headers = headers
        headers[.cookie] = cookie
        return try await api.send(.post, path, body: Data(body.utf8), apiKey: nil, contentType: "application/x-www-form-urlencoded", headers: headers)
    }

    static func decision(_ api: APIClient, ip: String) async throws -> String? {
        try await api.post("/v1/score", json: ["appId": ServerHarness.appId, "userId": "alice", "ip": ip])["decision"] as? String
    }

    @Test("an admin creates a list, adds and removes entries by the forms; the verdicts follow", arguments: ServerBackend.available)
    func forms(backend: ServerBackend) async throws {
        try await ServerHarness.run(backend, extraEnvironment: try Self.environment()) { api in
            let session = try await ConsoleRouteTests.session(api, key: ServerHarness.adminKey)
            let page = try await ConsoleRouteTests.get(api, "/console/lists", cookie: session)
            #expect(page.status == 200, "\(page.text.prefix(400))")
            ConsoleRouteTests.expectConsoleHeaders(page, "/console/lists")
            #expect(page.text.contains("href=\"/console/lists/blocked_ips"), "the shipped rules' list is there")
            let token = try #require(Self.token(in: page.text), "the create form carries the session's token")

            let created = try await Self.post(api, "/console/lists", [("csrf", token), ("name", "vip_users"), ("kind", "string"), ("description", "VIPs")], cookie: session)
            #expect(created.status == 303 && created.headers[.location]?.hasPrefix("/console/lists/vip_users") == true, "\(created.status) \(created.text.prefix(300))")

            #expect(try await Self.decision(api, ip: "203.0.113.9") == "allow")
            let added = try await Self.post(api, "/console/lists/blocked_ips/add", [
                ("csrf", token), ("entries", "203.0.113.7/24\r\n2001:db8::/32\r\n"), ("ttl", "24h"), ("note", "incident <b>7</b>"),
            ], cookie: session)
            #expect(added.status == 303, "\(added.status) \(added.text.prefix(300))")
            #expect(try await Self.decision(api, ip: "203.0.113.9") == "deny")
            let list = try await ConsoleRouteTests.get(api, "/console/lists/blocked_ips", cookie: session)
            #expect(list.status == 200)
            #expect(ConsoleRouteTests.figure("entries", in: list.text) == 2)
            #expect(list.text.contains("<code>203.0.113.0/24</code>") && list.text.contains("incident &lt;b&gt;7&lt;/b&gt;"), "escaped")
            #expect(list.text.contains("<td>operator</td><td>added</td>"), "the change log names who")

            let removed = try await Self.post(api, "/console/lists/blocked_ips/remove", [("csrf", token), ("value", "203.0.113.0/24")], cookie: session)
            #expect(removed.status == 303)
            #expect(try await Self.decision(api, ip: "203.0.113.9") == "allow")

            let bad = try await Self.post(api, "/console/lists/blocked_ips/add", [("csrf", token), ("entries", "not-an-ip")], cookie: session)
            #expect(bad.status == 400 && bad.text.contains("data-code=\"list_entry_invalid\""), "\(bad.status)")
            let badTTL = try await Self.post(api, "/console/lists/blocked_ips/add", [("csrf", token), ("entries", "10.0.0.1"), ("ttl", "soon")], cookie: session)
            #expect(badTTL.status == 400)
            let unknown = try await ConsoleRouteTests.get(api, "/console/lists/nope", cookie: session)
            #expect(unknown.status == 404 && unknown.text.contains("list_not_found"))
        }
    }

    @Test("a form without this session's token, or from another site, is refused and changes nothing")
    func forgedForms() async throws {
        try await ServerHarness.run(.sqlite, extraEnvironment: try Self.environment()) { api in
            let session = try await ConsoleRouteTests.session(api, key: ServerHarness.adminKey)
            api.clock.advance(by: 1)
            let other = try await ConsoleRouteTests.session(api, key: ServerHarness.adminKey)
            #expect(other != session, "a later login is another session")
            let token = try #require(Self.token(in: try await ConsoleRouteTests.get(api, "/console/lists", cookie: session).text))
            let otherToken = try #require(Self.token(in: try await ConsoleRouteTests.get(api, "/console/lists", cookie: other).text))
            #expect(token != otherToken, "a token is its session's")
            let forged: [([(String, String)], HTTPFields)] = [
                ([("entries", "10.0.0.1")], [:]),
                ([("csrf", ""), ("entries", "10.0.0.1")], [:]),
                ([("csrf", otherToken), ("entries", "10.0.0.1")], [:]),
                ([("csrf", Forgery.altered(token, last: 1)), ("entries", "10.0.0.1")], [:]),
                ([("csrf", token), ("entries", "10.0.0.1")], [HTTPField.Name("Origin")!: "https://evil.example"]),
                ([("csrf", token), ("entries", "10.0.0.1")], [HTTPField.Name("Sec-Fetch-Site")!: "cross-site"]),
            ]
            for (fields, headers) in forged {
                let reply = try await Self.post(api, "/console/lists/blocked_ips/add", fields, cookie: session, headers: headers)
                #expect(reply.status == 403 && reply.text.contains("data-code=\"forbidden\""), "\(fields.map(\.0)) \(headers): \(reply.status)")
            }
            let list = try await ConsoleRouteTests.get(api, "/console/lists/blocked_ips", cookie: session)
            #expect(ConsoleRouteTests.figure("entries", in: list.text) == 0, "nothing changed")
            let noSession = try await api.send(.post, "/console/lists/blocked_ips/add", body: Data("csrf=\(token)&entries=10.0.0.1".utf8), apiKey: nil,
                                               contentType: "application/x-www-form-urlencoded")
            #expect(noSession.status == 303 && noSession.headers[.location] == "/console/login")
        }
    }

    @Test("a reader sees lists without forms and cannot post; a key limited to some apps sees none")
    func access() async throws {
        try await ServerHarness.run(.sqlite, extraEnvironment: try Self.environment()) { api in
            let reader = try await ConsoleRouteTests.session(api, key: Self.readerKey)
            let page = try await ConsoleRouteTests.get(api, "/console/lists", cookie: reader)
            #expect(page.status == 200 && Self.token(in: page.text) == nil, "no form for a reader")
            let list = try await ConsoleRouteTests.get(api, "/console/lists/blocked_ips", cookie: reader)
            #expect(list.status == 200 && Self.token(in: list.text) == nil)
            let posted = try await Self.post(api, "/console/lists", [("csrf", "x"), ("name", "mine")], cookie: reader)
            #expect(posted.status == 403)
            let limited = try await ConsoleRouteTests.session(api)
            #expect(try await ConsoleRouteTests.get(api, "/console/lists", cookie: limited).status == 403)
        }
    }
}
