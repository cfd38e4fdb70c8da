import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import AttestTestSupport

/// The console in a real browser: `attestguard serve` with an operator listener, a shadow rule set and the fake Apple
/// plays the demo's personas; then headless Chromium (Debian's `chromium`, driven by `scripts/console-browser.py`)
/// signs in through the login form and loads every page. The figures on the pages must equal the traffic's own tally
/// (every answer of every persona, by decision), a decision whose action is a script must show as text, no page may
/// hold a script or break its CSP, and the session cookie must be HttpOnly, Secure, SameSite=Strict with an expiry.
/// A key that may change things then works the forms: a run-time list's entries, and the review queue (claim,
/// approve, reject); the same forms posted from another site change nothing.
/// The screenshots and DOMs stay in `test-artefacts/console/` (git-ignored).
@Suite("Process: the console in headless Chromium after demo traffic")
struct ConsoleBrowserProcessTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let chromium = "/usr/bin/chromium"
    static let artefacts = repository.appendingPathComponent("test-artefacts/console")
    static let analystKey = "console-analyst-key-0123456789"
    static let appId = "ABCDE12345.com.example.attestguard"
    static let hostileAction = "<script>alert(1)</script>"
    static let decisions = ["allow", "review", "deny"]

    /// The pages the browser loads, by artefact name.
    static let pages: [(name: String, path: String)] = [
        ("verdicts", "/console?range=1h"), ("rules", "/console/rules?range=1h"), ("shadow", "/console/shadow?range=1h"),
        ("rollout", "/console/rollout?range=1h"), ("risk", "/console/risk?range=1h"),
        ("search", "/console/search?range=1h&by=user&q=console-xss"), ("review", "/console/review-queue?range=1h"),
    ]

    /// The number a page shows under `data-figure="name"`.
    static func figure(_ name: String, in html: String) -> Int? {
        guard let range = html.range(of: "data-figure=\"\(name)\">") else { return nil }
        return Int(html[range.upperBound...].prefix { $0.isNumber })
    }

    @Test("every page loads in Chromium and shows the traffic's own tally, escaped",
          .enabled(if: FileManager.default.isExecutableFile(atPath: chromium) || ProcessInfo.processInfo.environment["CI"] == "true"))
    func pagesInChromium() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("attestguard-console-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let shadow = folder.appendingPathComponent("shadow")
        try FileManager.default.copyItem(at: Self.repository.appendingPathComponent("Rules"), to: shadow)
        let shadowFile = shadow.appendingPathComponent("default.yaml")
        try String(contentsOf: shadowFile, encoding: .utf8)
            .replacingOccurrences(of: "decisions: { review: 50, deny: 80 }", with: "decisions: { review: 10, deny: 20 }")
            .write(to: shadowFile, atomically: true, encoding: .utf8)
        let secretFile = folder.appendingPathComponent("console-secret")
        try "a-console-session-secret-of-at-least-32-characters".write(to: secretFile, atomically: true, encoding: .utf8)

        let (fake, apple) = try await ReceiptBatchProcessTests.startFakeApple(scenario: ["--risk-metric", "1"])
        defer { fake.stop() }
        var environment = ServerProcess.environment(databaseURL: nil, sqlitePath: folder.appendingPathComponent("store.sqlite").path)
            .merging(apple) { _, new in new }
        environment["ATTESTGUARD_RULES_DIRECTORY"] = DemoProcessTests.rules.path
        environment["ATTESTGUARD_RULES_SHADOW_DIRECTORY"] = shadow.path
        environment["ATTESTGUARD_APPS_MAIN_ATTESTATION_REQUIRED_PERCENT"] = "50"
        environment["ATTESTGUARD_APPS_MAIN_REVIEW_QUEUE_ACTIONS"] = "*"
        environment["ATTESTGUARD_API_KEYS_NAMES"] = "gateway,analyst"
        environment["ATTESTGUARD_API_KEYS_GATEWAY_SCOPES"] = "verify,score,admin,devicecheck:write"
        environment["ATTESTGUARD_API_KEYS_ANALYST_SECRET_ENV"] = "CONSOLE_ANALYST_KEY"
        environment["ATTESTGUARD_API_KEYS_ANALYST_SCOPES"] = "analyst"
        environment["ATTESTGUARD_API_KEYS_ANALYST_APPS"] = Self.appId
        environment["CONSOLE_ANALYST_KEY"] = Self.analystKey
        environment["ATTESTGUARD_CONSOLE_SESSION_SECRET_FILE"] = secretFile.path
        environment["ATTESTGUARD_CHALLENGES_MAX_PER_USER"] = "30"
        environment["ATTESTGUARD_RECEIPTS_REFRESH_FIRST_REDEMPTION_DELAY_SECONDS"] = "1"
        environment["ATTESTGUARD_RECEIPTS_REFRESH_POLL_SECONDS"] = "1"
        environment["ATTESTGUARD_OPERATOR_PORT"] = "0"
        let server = try await ServerProcess(environment: environment)
        defer { server.stop() }
        let operatorURL = try #require(server.operatorURL, "no operator listener address printed")

        // The demo's personas, with the tally of every answer each got.
        let keyFile = try CommandLineRunner.temporaryFile(Array(ServerProcess.apiKey.utf8), name: "api-key")
        let traffic = try await CommandLineRunner.run([
            "simulate", "traffic", "--server", server.baseURL.absoluteString, "--operator-listener", operatorURL.absoluteString,
            "--api-key-file", keyFile, "--fake-apple", fake.baseURL.absoluteString, "--seed", "attestguard-tests", "--duration", "4", "--json",
        ])
        #expect(traffic.status == 0, "\(traffic.standardOutput)\n\(traffic.standardError)")
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(traffic.standardOutput.utf8)) as? [[String: Any]])
        var tally: [String: Int] = [:]
        for row in rows {
            let answers = try #require(row["answers"] as? [String: Int], "\(row["persona"] ?? "?") has no answers")
            for (answer, count) in answers where Self.decisions.contains(answer) { tally[answer, default: 0] += count }
        }
        #expect(tally["deny", default: 0] > 0 && tally["review", default: 0] > 0 && tally["allow", default: 0] > 0, "\(tally)")

        // Three verdicts the shipped rules review (a client that says it cannot attest, never DeviceCheck-validated),
        // so that the review queue holds at least three items whatever the personas did.
        for index in 1...3 {
            let reviewed = try await server.send(
                "POST", "v1/score",
                body: try JSONSerialization.data(withJSONObject: ["appId": Self.appId, "userId": "console-review-\(index)", "attestStatus": "unsupported"])
            )
            #expect(reviewed.json["decision"] as? String == "review", "\(reviewed.json)")
            tally[reviewed.json["decision"] as? String ?? "?", default: 0] += 1
        }

        // One more verdict, whose action is a script.
        let hostile = try await server.send(
            "POST", "v1/score",
            body: try JSONSerialization.data(withJSONObject: ["appId": Self.appId, "userId": "console-xss", "action": Self.hostileAction])
        )
        #expect(hostile.status == 200)
        let hostileDecision = try #require(hostile.json["decision"] as? String)
        tally[hostileDecision, default: 0] += 1
        // It is the last verdict: once the write-behind has logged it, it has logged every one before it.
        let logged = ContinuousClock.now
        while ContinuousClock.now - logged < .seconds(60) {
            var request = URLRequest(url: try #require(URL(string: "v1/apps/\(Self.appId)/decisions?userId=console-xss", relativeTo: server.baseURL)))
            request.setValue("Bearer \(ServerProcess.apiKey)", forHTTPHeaderField: "Authorization")
            let (data, _) = try await URLSession.shared.dataShieldedFromCancellation(for: request)
            let found = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
            if (found?["decisions"] as? [Any])?.count == 1 { break }
            try await Task.sleep(for: .milliseconds(500))
        }

        #expect(try await server.send("GET", "console/login").status == 404, "the console lives on the operator listener only")
        let analystKeyFile = try CommandLineRunner.temporaryFile(Array(Self.analystKey.utf8), name: "analyst-key")
        try? FileManager.default.removeItem(at: Self.artefacts)
        let browse = try await CommandLineRunner.runShell(
            "python3 scripts/console-browser.py --timeout 180 --base \"$BASE\" --key-file \"$KEY_FILE\" --out \"$OUT\" "
                + Self.pages.map { "'\($0.name)=\($0.path)'" }.joined(separator: " "),
            in: Self.repository,
            environment: ProcessInfo.processInfo.environment.merging([
                "BASE": operatorURL.absoluteString, "KEY_FILE": analystKeyFile, "OUT": Self.artefacts.path,
            ]) { _, new in new }
        )
        let reportData = try Data(contentsOf: Self.artefacts.appendingPathComponent("browser.json"))
        let report = try #require(try JSONSerialization.jsonObject(with: reportData) as? [String: Any])
        #expect(browse.status == 0, "\(report["error"] ?? browse.standardError)")
        #expect(report["login"] as? String == "/console", "the login form leads to the console")

        let cookies = report["cookies"] as? [[String: Any]] ?? []
        let cookie = try #require(cookies.first { $0["name"] as? String == "attestguard_console" }, "\(cookies)")
        #expect(cookie["httpOnly"] as? Bool == true && cookie["secure"] as? Bool == true && cookie["sameSite"] as? String == "Strict")
        #expect(cookie["session"] as? Bool == false, "the cookie has an expiry")
        #expect(cookie["path"] as? String == "/console")
        let messages = report["messages"] as? [[String: Any]] ?? []
        #expect(!messages.contains { ($0["text"] as? String ?? "").contains("Content Security Policy") }, "\(messages)")

        let login = try Data(contentsOf: Self.artefacts.appendingPathComponent("login.png"))
        #expect(login.starts(with: [0x89, 0x50, 0x4E, 0x47]), "login.png is a screenshot")
        var html: [String: String] = [:]
        let pages = report["pages"] as? [String: [String: Any]] ?? [:]
        for (name, path) in Self.pages {
            let page = try #require(pages[name], "\(name) was not loaded")
            #expect((page["url"] as? String)?.hasSuffix(path) == true, "\(name) ended at \(page["url"] ?? "?")")
            #expect(page["scripts"] as? Int == 0, "\(name) holds a script")
            #expect(page["stylesheetApplied"] as? String == "rgb(246, 247, 249)", "\(name): the stylesheet applies")
            let png = try Data(contentsOf: Self.artefacts.appendingPathComponent("\(name).png"))
            #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]) && png.count > 10_000, "\(name).png is a screenshot")
            html[name] = try String(contentsOf: Self.artefacts.appendingPathComponent("\(name).html"), encoding: .utf8)
        }

        let verdicts = html["verdicts"] ?? ""
        for decision in Self.decisions {
            #expect(Self.figure("total-\(decision)", in: verdicts) == tally[decision, default: 0], "\(decision): page vs tally \(tally)")
        }
        let total = tally.values.reduce(0, +)
        #expect(Self.figure("total", in: verdicts) == total)
        #expect(Self.figure("shadow-counted", in: html["shadow"] ?? "") == total, "the shadow set decided every verdict too")
        #expect((Self.figure("disagreements", in: html["shadow"] ?? "") ?? 0) > 0, "the lower thresholds disagree somewhere")
        let rules = html["rules"] ?? ""
        #expect((Self.figure("live-key-farm", in: rules) ?? 0) > 0 && (Self.figure("live-assertion-burst", in: rules) ?? 0) > 0)
        let rollout = html["rollout"] ?? ""
        #expect(Self.figure("required-percent", in: rollout) == 50)
        #expect((Self.figure("with-key", in: rollout) ?? 0) + (Self.figure("without-key", in: rollout) ?? 0) == total)
        #expect((Self.figure("keys", in: html["risk"] ?? "") ?? 0) > 0)

        let search = html["search"] ?? ""
        #expect(Self.figure("decisions", in: search) == 1)
        #expect(pages["search"]?["actions"] as? [String] == [Self.hostileAction], "the action is the cell's text")
        #expect(search.contains("&lt;script&gt;alert(1)&lt;/script&gt;") && !search.contains(Self.hostileAction))

        // A key that may change lists adds a block through the run-time list page's form, and the next verdict from
        // inside it is denied; the same form posted from another site, without the page's token, changes nothing.
        let writerKeyFile = try CommandLineRunner.temporaryFile(Array(ServerProcess.apiKey.utf8), name: "writer-key")
        let listsOut = Self.artefacts.appendingPathComponent("lists")
        let listPath = "/console/lists/blocked_ips"
        let edit = try await CommandLineRunner.runShell(
            "python3 scripts/console-browser.py --timeout 180 --base \"$BASE\" --key-file \"$KEY_FILE\" --out \"$OUT\" "
                + "--add-entries \"$EDIT\" --forge 'lists=/console/lists'",
            in: Self.repository,
            environment: ProcessInfo.processInfo.environment.merging([
                "BASE": operatorURL.absoluteString, "KEY_FILE": writerKeyFile, "OUT": listsOut.path,
                "EDIT": "\(listPath)=203.0.113.7/24\n198.51.100.7",
            ]) { _, new in new }
        )
        let listReport = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: listsOut.appendingPathComponent("browser.json"))) as? [String: Any]
        )
        #expect(edit.status == 0, "\(listReport["error"] ?? edit.standardError)")
        let added = listReport["added"] as? [String: Any] ?? [:]
        #expect((added["url"] as? String)?.contains(listPath) == true, "the form leads back to the list: \(added)")
        // The blocked-range persona put its range there before: the form's entries join it.
        let entries = Set(added["entries"] as? [String] ?? [])
        #expect(entries.isSuperset(of: ["198.51.100.7", "203.0.113.0/24"]) && entries.count == 3, "\(added)")
        let forged = listReport["forged"] as? [String: Any] ?? [:]
        #expect((forged["url"] as? String)?.contains(listPath + "/add") != true || (forged["text"] as? String)?.contains("forbidden") == true,
                "the forged form got no change through: \(forged)")
        #expect(Set((listReport["afterForgery"] as? [String: Any])?["entries"] as? [String] ?? []) == entries, "the forged form added nothing")
        let denied = try await server.send(
            "POST", "v1/score", body: try JSONSerialization.data(withJSONObject: ["appId": Self.appId, "userId": "console-list", "ip": "203.0.113.99"])
        )
        #expect(denied.json["decision"] as? String == "deny", "\(denied.json)")
        #expect(!(html["review"] ?? "").contains("name=\"csrf\""), "a read-only analyst gets no review forms")

        // The review queue: the review verdicts (the seeded three, and the personas') opened items; the browser claims
        // and approves the oldest, claims and rejects the next, and a decision posted from another site leaves a third
        // open.
        // The seeded review verdicts reach the queue with the write-behind's next flush: wait for them.
        let queued = ContinuousClock.now
        while ContinuousClock.now - queued < .seconds(60) {
            let pending = try await server.send("GET", "v1/apps/\(Self.appId)/review-items", query: "status=pending")
            if (pending.json["items"] as? [Any])?.count ?? 0 >= 3 { break }
            try await Task.sleep(for: .milliseconds(200))
        }
        let reviewOut = Self.artefacts.appendingPathComponent("review")
        let review = try await CommandLineRunner.runShell(
            "python3 scripts/console-browser.py --timeout 180 --base \"$BASE\" --key-file \"$KEY_FILE\" --out \"$OUT\" --review '/console/review-queue?range=1h' --forge",
            in: Self.repository,
            environment: ProcessInfo.processInfo.environment.merging([
                "BASE": operatorURL.absoluteString, "KEY_FILE": writerKeyFile, "OUT": reviewOut.path,
            ]) { _, new in new }
        )
        let reviewReport = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: reviewOut.appendingPathComponent("browser.json"))) as? [String: Any]
        )
        #expect(review.status == 0, "\(reviewReport["error"] ?? review.standardError)")
        let steps = reviewReport["review"] as? [String: Any] ?? [:]
        for (step, status) in [("approved", "approved"), ("rejected", "rejected")] {
            let shown = steps[step] as? [String: Any] ?? [:]
            #expect(shown["claimed"] as? String == "claimed" && shown["status"] as? String == status && shown["note"] as? Bool == true, "\(step): \(shown)")
        }
        #expect((steps["afterForgery"] as? [String: Any])?["status"] as? String == "open", "the forged decision changed nothing: \(steps)")
        let decided = try await server.send("GET", "v1/apps/\(Self.appId)/review-items", query: "status=decided")
        #expect((decided.json["items"] as? [[String: Any]])?.compactMap { $0["decidedBy"] as? String } == ["gateway", "gateway"], "\(decided.json)")
    }
}
