import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import AttestTestSupport

/// The shipped dashboards against a real Prometheus: a server (with a shadow rule set, the fake Apple and an operator
/// listener, which Prometheus scrapes) driven by the demo's personas; then every panel query of `Dashboards/*.json`,
/// exactly as shipped but for Grafana's variables, must run, and the panels of what the traffic caused must show a
/// value above 0.
@Suite("Process: dashboard queries on Prometheus scraping demo traffic")
struct DashboardQueriesProcessTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let prometheus = "/usr/bin/prometheus"

    /// Panels whose series the traffic must lift above 0, by dashboard file and title, with the event behind each.
    static let caused: [(dashboard: String, panel: String, event: String)] = [
        ("attestguard-overview.json", "Processes up", "Prometheus scrapes the server"),
        ("attestguard-overview.json", "Simulator-mode processes", "the server runs in simulator mode"),
        ("attestguard-overview.json", "Requests/s", "every persona's requests"),
        ("attestguard-overview.json", "Rule versions in force", "the rule set loaded"),
        ("attestguard-overview.json", "Last rule reload", "the rule set loaded at start"),
        ("attestguard-overview.json", "Requests/s by route", "every persona's requests"),
        ("attestguard-overview.json", "Responses/s by status", "every persona's requests"),
        ("attestguard-overview.json", "Error ratio by status class", "the replayer's 409 and the tamperer's 422"),
        ("attestguard-overview.json", "Error answers/s by code", "the replayer's 409 and the tamperer's 422"),
        ("attestguard-overview.json", "Latency p50 / p99 (all routes)", "every persona's requests"),
        ("attestguard-overview.json", "Latency p99 by route", "every persona's requests"),
        ("attestguard-overview.json", "Attestations/s by result", "every attested persona"),
        ("attestguard-overview.json", "Assertions/s by result", "signed requests"),
        ("attestguard-overview.json", "Challenges/s by purpose and result", "challenges for attestations and assertions"),
        ("attestguard-overview.json", "Verification failure ratio", "the replayed and the tampered assertion"),
        ("attestguard-overview.json", "Failure codes over the time range", "the replayed and the tampered assertion"),
        ("attestguard-overview.json", "Verdicts/s by decision and enforced", "verdicts of every persona"),
        ("attestguard-overview.json", "Deny / review share", "the farm's denies, the burst's reviews"),
        ("attestguard-overview.json", "Scoring latency p50 / p99", "verdicts of every persona"),
        ("attestguard-overview.json", "Shadow vs live disagreement", "the shadow set's lower thresholds"),
        ("attestguard-overview.json", "Shadow vs live pairs over the time range", "the shadow set beside the live one"),
        ("attestguard-overview.json", "Rule version in force per instance", "the rule set loaded"),
        ("attestguard-overview.json", "Last rule reload per instance", "the rule set loaded at start"),
        ("attestguard-overview.json", "Rules in force loaded", "the rule set loaded at start"),
        ("attestguard-overview.json", "Redemptions/s by outcome", "new keys' receipts redeemed with the fake Apple"),
        ("attestguard-overview.json", "Redemption latency p50 / p99 (Apple)", "new keys' receipts redeemed with the fake Apple"),
        ("attestguard-overview.json", "Redemptions per app (last 24 h)", "new keys' receipts redeemed with the fake Apple"),
        ("attestguard-overview.json", "Risk metric mean and quantiles", "redeemed receipts' risk metrics"),
        ("attestguard-overview.json", "DeviceCheck requests/s by operation and result", "the promotion abuser's DeviceCheck update"),
        ("attestguard-overview.json", "Processes by server version", "the server's build info"),
        ("attestguard-overview.json", "CPU cores used by process", "the server working"),
        ("attestguard-overview.json", "Resident memory by process", "the server's memory"),
        ("attestguard-rules.json", "Verdicts/s by endpoint and decision", "verdicts of every persona"),
        ("attestguard-rules.json", "Deny / review share by endpoint", "the farm's denies, the burst's reviews"),
        ("attestguard-rules.json", "Rule decision vs returned verdict over the time range", "verdicts of every persona"),
        ("attestguard-rules.json", "Shadow vs live disagreement", "the shadow set's lower thresholds"),
        ("attestguard-rules.json", "Live vs shadow decisions /s", "the shadow set beside the live one"),
        ("attestguard-rules.json", "Shadow vs live pairs over the time range", "the shadow set beside the live one"),
        ("attestguard-rules.json", "Rule version in force per instance", "the rule set loaded"),
        ("attestguard-rules.json", "Scoring latency p99", "verdicts of every persona"),
        ("attestguard-rules.json", "Rule hits/s by rule (live, top 15)", "the farm's key-farm, the burst's assertion-burst"),
        ("attestguard-rules.json", "Rule hit share of verdicts (live, top 15)", "the farm's key-farm, the burst's assertion-burst"),
        ("attestguard-rules.json", "Rule hits over the time range, live vs shadow", "rules firing in both sets"),
        ("attestguard-rules.json", "Attested share of verdicts by app", "every attested persona's verdicts"),
        ("attestguard-rules.json", "Enforced per app (1 enforce, 0 monitor)", "the demo's app in enforce mode"),
    ]

    /// One panel query with Grafana's variables given the values Grafana would: every job and instance, every
    /// endpoint, a rate window of four scrape intervals and the whole run as the range.
    static func substituted(_ expr: String, range: Int) -> String {
        expr.replacingOccurrences(of: "$__rate_interval", with: "4s")
            .replacingOccurrences(of: "$__range", with: "\(range)s")
            .replacingOccurrences(of: "$job", with: "attestguard")
            .replacingOccurrences(of: "$instance", with: ".+")
            .replacingOccurrences(of: "$endpoint", with: ".+")
    }

    struct PanelQuery {
        var dashboard: String
        var panel: String
        var expr: String
    }

    /// Every query of every panel of the shipped dashboards.
    static func panelQueries() throws -> [PanelQuery] {
        let folder = repository.appendingPathComponent("Dashboards")
        var queries: [PanelQuery] = []
        for file in try FileManager.default.contentsOfDirectory(atPath: folder.path).filter({ $0.hasSuffix(".json") }).sorted() {
            let dashboard = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent(file))) as? [String: Any])
            func visit(_ panels: [[String: Any]]) {
                for panel in panels {
                    for target in panel["targets"] as? [[String: Any]] ?? [] {
                        if let expr = target["expr"] as? String {
                            queries.append(PanelQuery(dashboard: file, panel: panel["title"] as? String ?? "?", expr: expr))
                        }
                    }
                    visit(panel["panels"] as? [[String: Any]] ?? [])
                }
            }
            visit(dashboard["panels"] as? [[String: Any]] ?? [])
        }
        return queries
    }

    @Test("every panel query runs, and the panels of what the demo traffic caused are above 0",
          .enabled(if: FileManager.default.isExecutableFile(atPath: prometheus) || ProcessInfo.processInfo.environment["CI"] == "true"))
    func panelsOnDemoTraffic() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("attestguard-dashboards-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // The shadow set: the shipped rules with lower thresholds, so that it decides otherwise on some verdicts.
        let shadow = folder.appendingPathComponent("shadow")
        try FileManager.default.copyItem(at: Self.repository.appendingPathComponent("Rules"), to: shadow)
        let shadowFile = shadow.appendingPathComponent("default.yaml")
        let shipped = try String(contentsOf: shadowFile, encoding: .utf8)
        #expect(shipped.contains("decisions: { review: 50, deny: 80 }"))
        try shipped.replacingOccurrences(of: "decisions: { review: 50, deny: 80 }", with: "decisions: { review: 10, deny: 20 }")
            .write(to: shadowFile, atomically: true, encoding: .utf8)

        let (fake, apple) = try await ReceiptBatchProcessTests.startFakeApple(scenario: ["--risk-metric", "1"])
        defer { fake.stop() }
        var environment = ServerProcess.environment(databaseURL: nil, sqlitePath: folder.appendingPathComponent("store.sqlite").path)
            .merging(apple) { _, new in new }
        environment["ATTESTGUARD_RULES_DIRECTORY"] = DemoProcessTests.rules.path
        environment["ATTESTGUARD_RULES_SHADOW_DIRECTORY"] = shadow.path
        environment["ATTESTGUARD_APPS_MAIN_ATTESTATION_REQUIRED_PERCENT"] = "50"
        environment["ATTESTGUARD_API_KEYS_GATEWAY_SCOPES"] = "verify,score,admin,devicecheck:write"
        environment["ATTESTGUARD_CHALLENGES_MAX_PER_USER"] = "30"
        environment["ATTESTGUARD_RECEIPTS_REFRESH_FIRST_REDEMPTION_DELAY_SECONDS"] = "1"
        environment["ATTESTGUARD_RECEIPTS_REFRESH_POLL_SECONDS"] = "1"
        environment["ATTESTGUARD_OPERATOR_PORT"] = "0"
        let server = try await ServerProcess(environment: environment)
        defer { server.stop() }
        let operatorURL = try #require(server.operatorURL, "no operator listener address printed")

        let port = try GatewayProcess.freePort()
        let configuration = """
            global: { scrape_interval: 1s, evaluation_interval: 1s }
            scrape_configs:
              - job_name: attestguard
                static_configs: [{ targets: ["\(operatorURL.host ?? "127.0.0.1"):\(operatorURL.port ?? 0)"] }]
            """
        let prometheusFolder = folder.appendingPathComponent("prometheus")
        try FileManager.default.createDirectory(at: prometheusFolder, withIntermediateDirectories: true)
        try configuration.write(to: prometheusFolder.appendingPathComponent("prometheus.yml"), atomically: true, encoding: .utf8)
        let prometheus = try await GatewayProcess(
            executable: Self.prometheus,
            arguments: [
                "--config.file=prometheus.yml", "--storage.tsdb.path=data", "--web.listen-address=127.0.0.1:\(port)",
                "--log.level=warn",
            ],
            directory: prometheusFolder, port: port
        )
        defer { prometheus.stop() }
        let api = PrometheusAPI(base: URL(string: "http://127.0.0.1:\(port)")!)
        let started = Date()
        // Prometheus starts scraping a few seconds after it listens (its discovery sends targets in batches).
        try await api.waitForSample(of: "up", within: .seconds(60))

        let keyFile = try CommandLineRunner.temporaryFile(Array(ServerProcess.apiKey.utf8), name: "api-key")
        let traffic = try await CommandLineRunner.run([
            "simulate", "traffic", "--server", server.baseURL.absoluteString, "--operator-listener", operatorURL.absoluteString,
            "--api-key-file", keyFile, "--fake-apple", fake.baseURL.absoluteString, "--seed", "attestguard-tests", "--duration", "4", "--json",
        ])
        #expect(traffic.status == 0, "\(traffic.standardOutput)\n\(traffic.standardError)")
        // Receipts are redeemed a second after attestation; then a few scrapes so that every rate has two samples.
        try await Task.sleep(for: .seconds(5))
        try await api.waitForSample(of: "attestguard_receipt_redemptions_total", within: .seconds(60))
        try await Task.sleep(for: .seconds(3))
        let end = Date()
        let range = Int(end.timeIntervalSince(started).rounded(.up)) + 5

        let queries = try Self.panelQueries()
        #expect(queries.count > 60)
        var positive: Set<String> = []
        for query in queries {
            let expr = Self.substituted(query.expr, range: range)
            let result = try await api.rangeQuery(expr, from: started, to: end)
            switch result {
            case .failure(let message):
                Issue.record("\(query.dashboard) \(query.panel): \(message): \(expr)")
            case .success(let maximum):
                if maximum > 0 { positive.insert("\(query.dashboard)\t\(query.panel)") }
            }
        }
        for expected in Self.caused {
            #expect(
                positive.contains("\(expected.dashboard)\t\(expected.panel)"),
                "\(expected.dashboard) \(expected.panel): no value above 0, though \(expected.event)"
            )
        }
    }
}

/// Prometheus's HTTP query API, as much as the dashboard test needs.
struct PrometheusAPI {
    let base: URL

    enum Result {
        /// The largest value of any series at any step (0 when there is none).
        case success(Double)
        case failure(String)
    }

    func rangeQuery(_ expr: String, from start: Date, to end: Date) async throws -> Result {
        var components = URLComponents(url: base.appendingPathComponent("api/v1/query_range"), resolvingAgainstBaseURL: false)!
        components.queryItems = [
            URLQueryItem(name: "query", value: expr), URLQueryItem(name: "start", value: String(start.timeIntervalSince1970)),
            URLQueryItem(name: "end", value: String(end.timeIntervalSince1970)), URLQueryItem(name: "step", value: "1"),
        ]
        // `+` in a query value is a space to Prometheus's form parser.
        components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        let (data, _) = try await URLSession.shared.dataShieldedFromCancellation(from: components.url!)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        guard object["status"] as? String == "success", let payload = object["data"] as? [String: Any] else {
            return .failure("\(object["errorType"] ?? "?"): \(object["error"] ?? "?")")
        }
        var maximum = 0.0
        for series in payload["result"] as? [[String: Any]] ?? [] {
            for point in series["values"] as? [[Any]] ?? [] {
                if let text = point.last as? String, let value = Double(text), value.isFinite { maximum = max(maximum, value) }
            }
        }
        return .success(maximum)
    }

    /// Waits until Prometheus has a sample of `metric` above 0.
    func waitForSample(of metric: String, within limit: Duration) async throws {
        let started = ContinuousClock.now
        while ContinuousClock.now - started < limit {
            if case .success(let value) = try await rangeQuery("sum(\(metric))", from: Date().addingTimeInterval(-5), to: Date()), value > 0 {
                return
            }
            try await Task.sleep(for: .milliseconds(500))
        }
        Issue.record("Prometheus saw no \(metric) above 0 within \(limit)")
    }
}
