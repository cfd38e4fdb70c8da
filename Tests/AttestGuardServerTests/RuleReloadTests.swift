import AttestGuardEngine
import AttestGuardRuntime
import AttestGuardServer
import AttestTestSupport
import Foundation
import Logging
import RiskRules
import Testing
@testable import AttestGuardRuntime
@testable import AttestGuardServer

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Hot reload of the rule set: a good edit replaces the set atomically, a broken one is rejected with its problems
/// and the set in force stays; admin only.
@Suite("HTTP: rule reload")
struct RuleReloadTests {
    static func copyOfShippedRules() throws -> URL {
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("attestguard-rules-\(UUID().uuidString)")
        try FileManager.default.copyItem(atPath: ServerHarness.rulesDirectory, toPath: copy.path)
        return copy
    }

    static func edit(_ directory: URL, _ change: (String) -> String) throws {
        let file = directory.appendingPathComponent("default.yaml")
        try change(try String(contentsOf: file, encoding: .utf8)).write(to: file, atomically: true, encoding: .utf8)
    }

    @Test("a broken file is rejected with file:line:column and the rules in force stay; a good one replaces them")
    func reload() async throws {
        let directory = try Self.copyOfShippedRules()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await ServerHarness.run(.sqlite, extraEnvironment: ["ATTESTGUARD_RULES_DIRECTORY": directory.path]) { api in
            let initial = try await api.send(.get, "/v1/admin/rules", apiKey: ServerHarness.adminKey)
            #expect(initial.status == 200, "\(initial.text)")
            let version = try #require(initial["version"] as? String)
            #expect(initial["rules"] as? Int == 29)
            let listed = try #require(initial["processes"] as? [[String: Any]], "\(initial.text)")
            #expect(listed.count == 1 && listed[0]["current"] as? Bool == true && listed[0]["version"] as? String == version)
            #expect(listed[0]["processId"] as? String == initial["processId"] as? String)
            #expect(try await api.send(.get, "/v1/admin/rules").status == 403, "the gateway key has no admin scope")
            // A reload of unchanged files keeps when the rules in force loaded (the rule-hit alert's window).
            let loadedAt = try #require(initial["loadedAt"] as? String, "\(initial.text)")
            api.clock.advance(by: 600)
            let unchanged = try await api.post("/v1/admin/rules/reload", json: [:], apiKey: ServerHarness.adminKey)
            #expect(unchanged["reloaded"] as? Bool == true && unchanged["loadedAt"] as? String == loadedAt, "\(unchanged.text)")

            try Self.edit(directory) { $0.replacingOccurrences(of: "when: receipt.risk_metric >= 10", with: "when: receipt.risk_metrc >= 10") }
            let rejected = try await api.post("/v1/admin/rules/reload", json: [:], apiKey: ServerHarness.adminKey)
            #expect(rejected.status == 200)
            #expect(rejected["reloaded"] as? Bool == false)
            #expect(rejected["version"] as? String == version)
            let problem = try #require((rejected["rejected"] as? [[String: Any]])?.first)
            #expect(problem["code"] as? String == "unknown_signal")
            #expect((problem["line"] as? Int ?? 0) > 0 && problem["column"] as? Int == 11)
            let afterRejection = try await api.send(.get, "/v1/admin/rules", apiKey: ServerHarness.adminKey)
            let self_ = try #require((afterRejection["processes"] as? [[String: Any]])?.first)
            #expect(self_["rejected"] as? Bool == true && self_["version"] as? String == version, "still on the old set, with a rejected reload")
            let stillServing = try await api.post("/v1/score", json: ["appId": ServerHarness.appId, "userId": "z"])
            #expect(stillServing["ruleSetVersion"] as? String == version)

            try Self.edit(directory) {
                $0.replacingOccurrences(of: "when: receipt.risk_metrc >= 10", with: "when: receipt.risk_metric >= 10")
                    .replacingOccurrences(of: "decisions: { review: 50, deny: 80 }", with: "decisions: { review: 20, deny: 80 }")
            }
            let loaded = try await api.post("/v1/admin/rules/reload", json: [:], apiKey: ServerHarness.adminKey)
            #expect(loaded["reloaded"] as? Bool == true, "\(loaded.text)")
            let newVersion = try #require(loaded["version"] as? String)
            #expect(newVersion != version)
            #expect((loaded["rejected"] as? [Any])?.isEmpty == true)
            // No key is now a review: 20 points reach the lowered threshold.
            let after = try await api.post("/v1/score", json: ["appId": ServerHarness.appId, "userId": "z"])
            #expect(after["ruleSetVersion"] as? String == newVersion)
            #expect(after["decision"] as? String == "review")
        }
    }

    @Test("a shadow set is evaluated beside the live one on every request, reported, and never enforced")
    func shadow() async throws {
        let shadow = try Self.copyOfShippedRules()
        defer { try? FileManager.default.removeItem(at: shadow) }
        try Self.edit(shadow) { $0.replacingOccurrences(of: "decisions: { review: 50, deny: 80 }", with: "decisions: { review: 20, deny: 80 }") }
        try await ServerHarness.run(.sqlite, extraEnvironment: ["ATTESTGUARD_RULES_SHADOW_DIRECTORY": shadow.path]) { api in
            let status = try await api.send(.get, "/v1/admin/rules", apiKey: ServerHarness.adminKey)
            let shadowVersion = try #require(status["shadowVersion"] as? String)
            #expect(shadowVersion != status["version"] as? String)
            // No key: 20 points. The live set allows; the shadow, with its lowered threshold, would review.
            let reply = try await api.post("/v1/score", json: ["appId": ServerHarness.appId, "userId": "s"])
            #expect(reply["decision"] as? String == "allow", "never enforced")
            let engine = try #require(api.engine)
            let outcome = try await engine.scorer.score(ScoreRequest(appId: ServerHarness.appId, userId: try Identifier("s", field: "userId")))
            #expect(outcome.verdict.decision == .allow)
            #expect(outcome.shadow?.decision == .review)
            #expect(outcome.shadow?.ruleSetVersion == shadowVersion)
            let metrics = try await api.send(.get, "/metrics", apiKey: nil)
            #expect(metrics.text.contains(#"attestguard_shadow_verdicts_total{live="allow",shadow="review"}"#))
        }
    }

    @Test("a shadow set loads without a live rule directory: every verdict is allow, the shadow's decisions are logged")
    func shadowWithoutLiveRules() async throws {
        let shadow = try Self.copyOfShippedRules()
        defer { try? FileManager.default.removeItem(at: shadow) }
        // No rules.directory and no `Rules` to fall back on.
        var environment = ServerHarness.environment(databaseURL: nil, extra: ["ATTESTGUARD_RULES_SHADOW_DIRECTORY": shadow.path])
        environment["ATTESTGUARD_RULES_DIRECTORY"] = nil
        let configuration = try await ServerConfigurationLoader.load(file: nil, environment: environment)
        let reloader = try RuleSetStartup.load(configuration, clock: SystemClock(), logger: ServerHarness.logger, fallbackDirectory: nil)
        #expect(reloader.directory == nil && reloader.holder.ruleSet.rules.isEmpty)
        #expect(reloader.shadow?.holder.ruleSet.rules.count == 29)
        #expect(reloader.status.shadowVersion == reloader.shadow?.holder.ruleSet.version)
    }

    @Test("the watcher's fingerprint changes with a rule or list file, not with a test case")
    func fingerprint() throws {
        let directory = try Self.copyOfShippedRules()
        defer { try? FileManager.default.removeItem(at: directory) }
        let before = ReloadWatchService.fingerprint(directory.path)
        #expect(before.contains { $0.hasPrefix("default.yaml|") } && before.contains { $0.hasPrefix("lists/trusted-testers.txt|") })
        try "# changed\n".write(to: directory.appendingPathComponent("tests/default.yaml"), atomically: true, encoding: .utf8)
        #expect(ReloadWatchService.fingerprint(directory.path) == before)
        try "alice\n".write(to: directory.appendingPathComponent("lists/trusted-testers.txt"), atomically: true, encoding: .utf8)
        #expect(ReloadWatchService.fingerprint(directory.path) != before)
    }

    /// A reloader on `directory` that logs into `recording`, as `serve` builds it.
    static func reloader(_ directory: URL, recording: RecordingLogHandler.Recording = .init()) throws -> RuleSetReloader {
        let logger = Logger(label: "test") { _ in RecordingLogHandler(recording: recording, level: .debug) }
        return RuleSetReloader(holder: RuleSetHolder(try RuleSetLoader.load(directory: directory.path)), directory: directory.path,
                               clock: SystemClock(), logger: logger)
    }

    @Test("a 10 MB rule id is rejected as too_long; neither the admin answer nor the log repeats it")
    func hugeRuleId() async throws {
        let directory = try Self.copyOfShippedRules()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await ServerHarness.run(.sqlite, extraEnvironment: ["ATTESTGUARD_RULES_DIRECTORY": directory.path]) { api in
            let id = String(repeating: "a", count: 10_000_000)
            try "version: 1\nrules:\n  - id: \(id)\n    when: \"true\"\n    score: 1\n"
                .write(to: directory.appendingPathComponent("huge.yaml"), atomically: true, encoding: .utf8)
            let reloaded = try await api.post("/v1/admin/rules/reload", json: [:], apiKey: ServerHarness.adminKey)
            #expect(reloaded["reloaded"] as? Bool == false)
            #expect(reloaded.text.utf8.count < 16_384, "\(reloaded.text.utf8.count) bytes")
            let problems = try #require(reloaded["rejected"] as? [[String: Any]])
            #expect(problems.map { $0["code"] as? String } == ["too_long"])
            let status = try await api.send(.get, "/v1/admin/rules", apiKey: ServerHarness.adminKey)
            #expect(status.text.utf8.count < 16_384, "\(status.text.utf8.count) bytes")
        }
        let recording = RecordingLogHandler.Recording()
        try FileManager.default.removeItem(at: directory.appendingPathComponent("huge.yaml"))
        let reloader = try Self.reloader(directory, recording: recording)
        try "version: 1\nrules:\n  - id: \(String(repeating: "b", count: 10_000_000))\n    when: \"true\"\n    score: 1\n"
            .write(to: directory.appendingPathComponent("huge.yaml"), atomically: true, encoding: .utf8)
        #expect(reloader.reload(reason: "test").rejected.map(\.code) == [.tooLong])
        let lines = recording.events.filter { $0.level == .error }
        #expect(lines.count == 1)
        #expect(lines.allSatisfy { "\($0.message)\($0.metadata ?? [:])".utf8.count < 4_096 })
    }

    @Test("a FIFO never blocks a reload, and once it is removed the watcher picks up good edits again")
    func fifoInTheDirectory() async throws {
        let directory = try Self.copyOfShippedRules()
        defer { try? FileManager.default.removeItem(at: directory) }
        let reloader = try Self.reloader(directory)
        let watcher = ReloadWatchService(rules: reloader)
        let version = reloader.status.version
        let start = Fingerprints(watcher.fingerprints())
        let fifo = directory.appendingPathComponent("pipe.yaml").path
        #expect(mkfifo(fifo, 0o600) == 0)
        try Self.edit(directory) { $0.replacingOccurrences(of: "decisions: { review: 50, deny: 80 }", with: "decisions: { review: 5, deny: 80 }") }

        // Each poll is an explicit call (no timer); a poll that has not returned after 30 s is blocked for good.
        let afterFifo = try #require(await finishing(within: 30) { Fingerprints(watcher.reloadIfChanged(since: start.value)) }, "the reload blocked on the FIFO")
        #expect(reloader.status.rejected.map(\.code) == [.notRegularFile])
        #expect(reloader.status.version == version, "the set in force stays")

        #expect(unlink(fifo) == 0)
        let afterRemoval = try #require(await finishing(within: 30) { Fingerprints(watcher.reloadIfChanged(since: afterFifo.value)) })
        #expect(reloader.status.rejected.isEmpty, "removing the FIFO is a change: the pending good edit loads")
        let edited = reloader.status.version
        #expect(edited != version)

        try Self.edit(directory) { $0.replacingOccurrences(of: "decisions: { review: 5, deny: 80 }", with: "decisions: { review: 40, deny: 90 }") }
        _ = try #require(await finishing(within: 30) { Fingerprints(watcher.reloadIfChanged(since: afterRemoval.value)) })
        #expect(reloader.status.rejected.isEmpty)
        #expect(reloader.status.version != edited && reloader.holder.ruleSet.thresholds.review == 40, "a later good edit loads too")
    }

    @Test("the admin reload answers at once with not_regular_file while a FIFO stands in the directory")
    func fifoOverHTTP() async throws {
        let directory = try Self.copyOfShippedRules()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await ServerHarness.run(.sqlite, extraEnvironment: ["ATTESTGUARD_RULES_DIRECTORY": directory.path]) { api in
            #expect(mkfifo(directory.appendingPathComponent("lists/pipe.txt").path, 0o600) == 0)
            try Self.edit(directory) { $0.replacingOccurrences(of: "lists/trusted-testers.txt", with: "lists/pipe.txt") }
            let text = await finishing(within: 30) { (try? await api.post("/v1/admin/rules/reload", json: [:], apiKey: ServerHarness.adminKey))?.text ?? "" }
            let reply = try #require(text.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }, "the reload blocked on the FIFO")
            #expect(reply["reloaded"] as? Bool == false)
            #expect((reply["rejected"] as? [[String: Any]])?.map { $0["code"] as? String } == ["not_regular_file"], "\(text ?? "")")
            #expect(text?.contains("lists/pipe.txt") == true, "the problem names the list path")
        }
    }
}

/// Fingerprints carried across a thread boundary.
struct Fingerprints: Sendable {
    let value: [[String]]
    init(_ value: [[String]]) { self.value = value }
}
