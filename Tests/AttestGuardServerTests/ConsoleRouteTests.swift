import Foundation
import HTTPTypes
@testable import AttestGuardRuntime
@testable import AttestGuardServer
import Testing

/// The console's HTML routes on both stores: the login and its cookie, the headers of every response, redirects for
/// a missing, forged or expired session, app filtering, refusals drawn as pages (4xx, never 5xx), and the figures and
/// escaping of the pages after real traffic.
@Suite("HTTP: the analysts' console")
struct ConsoleRouteTests {
    static let app = ServerHarness.appId
    static let analyst = AnalystScopeTests.analystKey
    /// An action no page may draw as markup.
    static let hostileAction = "<script>alert(1)</script>"
    static let pages = ["/console", "/console/rules", "/console/shadow", "/console/rollout", "/console/risk", "/console/search"]

    /// The harness's keys and the analyst's, a shadow rule set (the shipped rules with lower thresholds) and a
    /// session secret.
    static func environment() throws -> [String: String] {
        var environment = AnalystScopeTests.environment
        environment["ATTESTGUARD_RULES_SHADOW_DIRECTORY"] = try shadowRules()
        environment["ATTESTGUARD_CONSOLE_SESSION_SECRET_ENV"] = "TEST_CONSOLE_SECRET"
        environment["TEST_CONSOLE_SECRET"] = "a-console-session-secret-of-32-characters"
        return environment
    }

    /// A copy of the shipped rules whose thresholds are lower, so that it decides otherwise on some verdicts.
    static func shadowRules() throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("attestguard-console-shadow-\(UUID().uuidString)")
        try FileManager.default.copyItem(at: URL(fileURLWithPath: ServerHarness.rulesDirectory), to: folder)
        let file = folder.appendingPathComponent("default.yaml")
        let shipped = try String(contentsOf: file, encoding: .utf8)
        try #require(shipped.contains("decisions: { review: 50, deny: 80 }"))
        try shipped.replacingOccurrences(of: "decisions: { review: 50, deny: 80 }", with: "decisions: { review: 10, deny: 20 }")
            .write(to: file, atomically: true, encoding: .utf8)
        return folder.path
    }

    /// Posts the login form; returns the reply.
    static func login(_ api: APIClient, key: String) async throws -> APIClient.Reply {
        let form = "key=" + (key.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? key)
        return try await api.send(.post, "/console/login", body: Data(form.utf8), apiKey: nil, contentType: "application/x-www-form-urlencoded")
    }

    /// Logs `key` in and returns the `Cookie` header value of its session.
    static func session(_ api: APIClient, key: String = analyst) async throws -> String {
        let reply = try await login(api, key: key)
        try #require(reply.status == 303, "\(reply.status) \(reply.text.prefix(300))")
        let setCookie = try #require(reply.headers[.setCookie])
        return String(try #require(setCookie.split(separator: ";").first))
    }

    static func get(_ api: APIClient, _ path: String, cookie: String?) async throws -> APIClient.Reply {
        try await api.send(.get, path, apiKey: nil, headers: cookie.map { [.cookie: $0] } ?? [:])
    }

    /// The number a page shows under `data-figure="name"`.
    static func figure(_ name: String, in html: String) -> Int? {
        guard let range = html.range(of: "data-figure=\"\(name)\">") else { return nil }
        return Int(html[range.upperBound...].prefix { $0.isNumber })
    }

    static func expectConsoleHeaders(_ reply: APIClient.Reply, _ path: String) {
        #expect(reply.headers[.contentSecurityPolicy]?.hasPrefix("default-src 'self'") == true, "\(path): CSP")
        #expect(reply.headers[.cacheControl] == "no-store", "\(path): Cache-Control")
    }

    @Test("login exchanges an analyst key for a signed HttpOnly, Secure, SameSite=Strict cookie with expiry", arguments: ServerBackend.available)
    func loginCookie(backend: ServerBackend) async throws {
        try await ServerHarness.run(backend, extraEnvironment: try Self.environment()) { api in
            let form = try await Self.get(api, "/console/login", cookie: nil)
            #expect(form.status == 200)
            #expect(form.headers[.contentType] == "text/html; charset=utf-8")
            #expect(form.text.contains("<form class=\"login\" method=\"post\" action=\"/console/login\">"))
            Self.expectConsoleHeaders(form, "/console/login")

            let reply = try await Self.login(api, key: Self.analyst)
            #expect(reply.status == 303)
            #expect(reply.headers[.location] == "/console")
            Self.expectConsoleHeaders(reply, "POST /console/login")
            let cookie = try #require(reply.headers[.setCookie])
            let attributes = Set(cookie.split(separator: ";").dropFirst().map { $0.trimmingCharacters(in: .whitespaces) })
            #expect(attributes == ["Path=/console", "Max-Age=3600", "HttpOnly", "Secure", "SameSite=Strict"])
            #expect(cookie.hasPrefix("attestguard_console=v1."))
            #expect(!cookie.contains(Self.analyst), "the cookie is a session, never the key")
            #expect(reply.headers[.location]?.contains(Self.analyst) != true)

            let session = String(try #require(cookie.split(separator: ";").first))
            for path in Self.pages {
                let page = try await Self.get(api, path, cookie: session)
                #expect(page.status == 200, "\(path): \(page.status) \(page.text.prefix(300))")
                Self.expectConsoleHeaders(page, path)
                #expect(page.text.contains("analyst"), "\(path) names the signed-in key")
            }
            let css = try await Self.get(api, "/console/console.css", cookie: nil)
            #expect(css.status == 200 && css.headers[.contentType] == "text/css; charset=utf-8")
            Self.expectConsoleHeaders(css, "/console/console.css")

            let logout = try await api.send(.post, "/console/logout", apiKey: nil, headers: [.cookie: session])
            #expect(logout.status == 303 && logout.headers[.location] == "/console/login")
            #expect(logout.headers[.setCookie]?.contains("Max-Age=0") == true)
        }
    }

    @Test("logout ends the session on the server, forms from another site are refused, unknown pages get the console's headers")
    func sessionControls() async throws {
        try await ServerHarness.run(.sqlite, extraEnvironment: try Self.environment()) { api in
            let session = try await Self.session(api)
            #expect(try await Self.get(api, "/console", cookie: session).status == 200)
            let logout = try await api.send(.post, "/console/logout", apiKey: nil, headers: [.cookie: session])
            #expect(logout.status == 303)
            // The browser forgets the cookie; a copy of it opens nothing either.
            #expect(try await Self.get(api, "/console", cookie: session).status == 303)

            let form = Data(("key=" + Self.analyst).utf8)
            for (name, value) in [("Origin", "https://evil.example"), ("Origin", "null"), ("Sec-Fetch-Site", "cross-site")] {
                var headers = HTTPFields()
                headers[HTTPField.Name(name)!] = value
                let forged = try await api.send(.post, "/console/login", body: form, apiKey: nil, contentType: "application/x-www-form-urlencoded", headers: headers)
                #expect(forged.status == 403 && forged.headers[.setCookie] == nil, "\(name): \(value): \(forged.status)")
                Self.expectConsoleHeaders(forged, "forged login")
            }
            let missing = try await Self.get(api, "/console/nowhere/at/all", cookie: nil)
            #expect(missing.status == 404 && missing.headers[.contentType] == "text/html; charset=utf-8")
            Self.expectConsoleHeaders(missing, "/console/nowhere/at/all")
        }
    }

    @Test("failed logins are limited: the eleventh in a minute is 429 with Retry-After, and the next minute opens again")
    func loginThrottle() async throws {
        try await ServerHarness.run(.sqlite, extraEnvironment: try Self.environment()) { api in
            for attempt in 1...10 {
                #expect(try await Self.login(api, key: "not-a-key-\(attempt)").status == 401)
            }
            let throttled = try await Self.login(api, key: Self.analyst)
            #expect(throttled.status == 429 && throttled.headers[.retryAfter] != nil, "\(throttled.status)")
            Self.expectConsoleHeaders(throttled, "throttled login")
            api.clock.advance(by: 60)
            #expect(try await Self.login(api, key: Self.analyst).status == 303)
        }
    }

    @Test("an absent, forged, altered or expired session is sent to the login page", arguments: ServerBackend.available)
    func redirects(backend: ServerBackend) async throws {
        try await ServerHarness.run(backend, extraEnvironment: try Self.environment()) { api in
            let session = try await Self.session(api)
            let value = String(session.dropFirst("attestguard_console=".count))
            var parts = value.split(separator: ".").map(String.init)
            parts[2] = String((Int(parts[2]) ?? 0) + 86_400)
            let extended = "attestguard_console=" + parts.joined(separator: ".")
            let otherName = "attestguard_console=v1.b3BlcmF0b3I.\(parts[2]).\(parts[3])"
            for cookie in [nil, "attestguard_console=", "attestguard_console=v1.x.y.z", extended, otherName, "other=" + value] as [String?] {
                for path in Self.pages {
                    let reply = try await Self.get(api, path, cookie: cookie)
                    #expect(reply.status == 303 && reply.headers[.location] == "/console/login", "\(path) with \(cookie ?? "no cookie"): \(reply.status)")
                    Self.expectConsoleHeaders(reply, path)
                }
            }
            #expect(try await Self.get(api, "/console", cookie: session).status == 200)
            api.clock.advance(by: 3_601)
            #expect(try await Self.get(api, "/console", cookie: session).status == 303, "expired an hour after login")
        }
    }

    @Test("a wrong key, a key without a console scope and a malformed form are refused with a page, never a 5xx", arguments: ServerBackend.available)
    func loginRefusals(backend: ServerBackend) async throws {
        try await ServerHarness.run(backend, extraEnvironment: try Self.environment()) { api in
            let wrong = try await Self.login(api, key: "not-a-key-of-this-server")
            #expect(wrong.status == 401 && wrong.text.contains("data-code=\"unauthorized\"") && wrong.headers[.setCookie] == nil)
            let gateway = try await Self.login(api, key: ServerHarness.apiKey)
            #expect(gateway.status == 403 && gateway.text.contains("data-code=\"forbidden\"") && gateway.headers[.setCookie] == nil)
            let empty = try await api.send(.post, "/console/login", body: Data("key=".utf8), apiKey: nil, contentType: "application/x-www-form-urlencoded")
            #expect(empty.status == 400)
            let json = try await api.send(.post, "/console/login", body: Data(#"{"key":"x"}"#.utf8), apiKey: nil)
            #expect(json.status == 415)
            let twice = try await api.send(.post, "/console/login", body: Data("key=a&key=b".utf8), apiKey: nil, contentType: "application/x-www-form-urlencoded")
            #expect(twice.status == 400)
            let broken = try await api.send(.post, "/console/login", body: Data("key=%zz".utf8), apiKey: nil, contentType: "application/x-www-form-urlencoded")
            #expect(broken.status == 400)
            let huge = try await api.send(
                .post, "/console/login", body: Data(("key=" + String(repeating: "a", count: 10_000)).utf8), apiKey: nil,
                contentType: "application/x-www-form-urlencoded"
            )
            #expect(huge.status == 413)
            for reply in [wrong, gateway, empty, json, twice, broken, huge] {
                Self.expectConsoleHeaders(reply, "POST /console/login")
                #expect(reply.headers[.contentType] == "text/html; charset=utf-8")
            }
        }
    }

    @Test("bad query input is a 4xx page, never a 5xx", arguments: ServerBackend.available)
    func badInput(backend: ServerBackend) async throws {
        try await ServerHarness.run(backend, extraEnvironment: try Self.environment()) { api in
            let session = try await Self.session(api)
            let cases: [(String, Int)] = [
                ("/console?range=2d", 400), ("/console?app=not%20an%20app", 400), ("/console?app=ABCDE12345.com.example.unknown", 404),
                ("/console/rules?app=\(ServerHarness.productionOnlyAppId)", 403), ("/console?app=%ff", 400), ("/console?range=1h&range=6h", 400),
                ("/console/search?by=key&q=not-a-key", 400), ("/console/search?by=fingerprint&q=x", 400),
                ("/console/search?by=user&q=\(String(repeating: "u", count: 300))", 400),
            ]
            for (path, status) in cases {
                let reply = try await Self.get(api, path, cookie: session)
                #expect(reply.status == status, "\(path): \(reply.status) \(reply.text.prefix(200))")
                #expect(reply.text.contains("data-code="), "\(path): the page names its code")
                Self.expectConsoleHeaders(reply, path)
            }
        }
    }

    @Test("the pages count what the traffic got, escape what it sent, and show a key only its apps", arguments: ServerBackend.available)
    func figuresAndEscaping(backend: ServerBackend) async throws {
        try await ServerHarness.run(backend, extraEnvironment: try Self.environment()) { api in
            var app = SimulatedApps.make(user: "console-user", device: "console-device")
            let attested = try await api.attest(app)
            #expect(attested.status == 201)
            #expect(try await api.assert(&app).status == 200)
            let hostile = try await api.post("/v1/score", json: ["appId": Self.app, "userId": "console-xss", "action": Self.hostileAction])
            #expect(hostile.status == 200, "\(hostile.text)")
            try await #require(api.engine).scorer.decisionLog.flush()
            api.clock.advance(by: 1)

            let session = try await Self.session(api)
            // The write-behind service flushes on its own too: a batch it took may still be on its way to the store.
            var verdicts = try await Self.get(api, "/console?range=1h", cookie: session)
            let waited = ContinuousClock.now
            while Self.figure("total", in: verdicts.text) != 3, ContinuousClock.now - waited < .seconds(30) {
                try await Task.sleep(for: .milliseconds(200))
                verdicts = try await Self.get(api, "/console?range=1h", cookie: session)
            }
            #expect(Self.figure("total", in: verdicts.text) == 3, "attestation, assertion and score")
            let counted = ["allow", "review", "deny"].compactMap { Self.figure("total-\($0)", in: verdicts.text) }
            #expect(counted.reduce(0, +) == 3)
            #expect(verdicts.text.contains("<svg class=\"chart\""))
            #expect(!verdicts.text.contains("style="), "no inline style: the CSP forbids it")

            let shadow = try await Self.get(api, "/console/shadow?range=1h", cookie: session)
            #expect(Self.figure("shadow-counted", in: shadow.text) == 3, "every verdict was decided by the shadow set too")
            let rules = try await Self.get(api, "/console/rules?range=1h", cookie: session)
            #expect(Self.figure("shadow-counted", in: rules.text) == 3)
            let rollout = try await Self.get(api, "/console/rollout?range=1h", cookie: session)
            #expect(Self.figure("with-key", in: rollout.text) == 2 && Self.figure("without-key", in: rollout.text) == 1)
            #expect(Self.figure("required-percent", in: rollout.text) == 0)
            let risk = try await Self.get(api, "/console/risk", cookie: session)
            #expect(Self.figure("keys", in: risk.text) == 1)
            #expect(Self.figure("band-unknown", in: risk.text) == 1, "no receipt redeemed without Apple")

            let search = try await Self.get(api, "/console/search?by=user&q=console-xss&range=1h", cookie: session)
            #expect(search.status == 200)
            #expect(Self.figure("decisions", in: search.text) == 1)
            #expect(search.text.contains("&lt;script&gt;alert(1)&lt;/script&gt;"), "the action is drawn as text")
            #expect(!search.text.contains(Self.hostileAction), "never as markup")
            #expect(!search.text.contains("<script"))
            let byKey = try await Self.get(api, "/console/search?by=key&q=\(app.key.keyIdBase64URL)", cookie: session)
            #expect(Self.figure("decisions", in: byKey.text) == 2)
            #expect(byKey.text.contains(app.key.keyIdBase64) && byKey.text.contains("not redeemed yet"))
            let byDevice = try await Self.get(api, "/console/search?by=device&q=console-device", cookie: session)
            #expect(Self.figure("decisions", in: byDevice.text) == 2)

            // An admin for the other app sees that app only, and none of this traffic.
            let narrow = try await Self.session(api, key: AnalystScopeTests.narrowAdminKey)
            let other = try await Self.get(api, "/console?range=1h", cookie: narrow)
            #expect(other.status == 200)
            #expect(other.text.contains(ServerHarness.productionOnlyAppId) && !other.text.contains("<option value=\"\(Self.app)\""))
            #expect(Self.figure("total", in: other.text) == 0)
            #expect(try await Self.get(api, "/console?app=\(Self.app)", cookie: narrow).status == 403)
            #expect(try await Self.get(api, "/console/search?app=\(Self.app)&by=user&q=console-xss", cookie: narrow).status == 403)
        }
    }
}
