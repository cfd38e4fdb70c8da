import AttestVocabulary
import FakeApple
import AttestCore
import AttestTestSupport
import Crypto
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import AttestGuardStore
import Testing

/// `attestguard receipts refresh` as real processes against `attestguard simulate apple` on one PostgreSQL: a batch
/// killed with SIGKILL halfway and started again, and two batches sharing the work. The tests run side by side: each
/// has its own schema and fake Apple process.
@Suite("attestguard receipts refresh processes")
struct ReceiptBatchProcessTests {
    /// Two batches started together each get a share of this many keys, however unevenly a busy machine starts them
    /// (both are launched at once; a batch of a thousand debug-built verifications lasts seconds, a start a fraction).
    static let sharedKeyCount = 1_000
    /// A batch killed at a third of these still has two thirds to do when the kill lands (the poll runs every 20 ms);
    /// more keys prove nothing more.
    static let resumedKeyCount = 600
    /// The fake's scenario as `simulate apple --risk-metric 3 --farm-fraction 0.1 --farm-risk-metric 25` builds it.
    static let scenario = FakeAppleScenario(defaultRiskMetric: 3, farmFraction: 0.1, farmRiskMetric: 25)

    /// A fake Apple process with a few injected failures, and the environment of batches pointed at it.
    struct Rig {
        let fake: ServerProcess
        let environment: [String: String]
        let store: TestStore
        let fleet: [ReceiptFleet.Member]

        static func start(keyCount: Int) async throws -> Rig {
            let url = try await TestPostgres.freshSchemaURL(prefix: "r")
            let store = try await TestStore.postgres(url: url, poolSize: 8)
            let now = Date()
            let fleet = try await ReceiptFleet.register(count: keyCount, in: store.store, at: now.addingTimeInterval(-60), dueAt: now)
            let (fake, apple) = try await startFakeApple(faults: ["--throttle-rate", "0.02", "--server-error-rate", "0.01", "--drop-rate", "0.005"])
            var environment = ServerProcess.environment(databaseURL: url, sqlitePath: nil).merging(apple) { _, new in new }
            environment["ATTESTGUARD_RECEIPTS_REFRESH_CONCURRENCY"] = "16"
            environment["ATTESTGUARD_RECEIPTS_REFRESH_LEASE_BATCH_SIZE"] = "32"
            environment["ATTESTGUARD_RECEIPTS_REFRESH_POLL_SECONDS"] = "1"
            environment["ATTESTGUARD_RECEIPTS_REFRESH_DEVELOPMENT_REQUESTS_PER_SECOND"] = "0"
            environment["ATTESTGUARD_RECEIPTS_REFRESH_LEASE_SECONDS"] = "4"
            return Rig(fake: fake, environment: environment, store: store, fleet: fleet)
        }

        func stats() async throws -> FakeAppleStats {
            let (data, _) = try await URLSession.shared.dataShieldedFromCancellation(from: fake.baseURL.appendingPathComponent("fake/stats"))
            return try JSONDecoder().decode(FakeAppleStats.self, from: data)
        }

        func batch(_ extra: [String: String] = [:]) throws -> BatchProcess {
            try BatchProcess(environment: environment.merging(extra) { _, new in new })
        }

        /// Every key holds a RECEIPT with its scenario metric and exactly one history row per stored metric.
        func checkEveryKey() async throws -> (wrong: Int, historyRows: Int) {
            var wrong = 0
            var rows = 0
            for member in fleet {
                let receipt = try await store.store.receipt(appId: SimulatorFixtures.app.appId, keyId: member.keyId)
                let history = try await store.store.riskMetricHistory(appId: SimulatorFixtures.app.appId, keyId: member.keyId)
                let expected = ReceiptBatchProcessTests.scenario.riskMetric(forToken: member.token)
                rows += history.count
                if receipt?.receiptType != .receipt || receipt?.riskMetric != expected || history.isEmpty || history.contains(where: { $0.riskMetric != expected }) {
                    wrong += 1
                }
            }
            return (wrong, rows)
        }

        func stop() async {
            fake.stop()
            await store.close()
        }
    }

    /// Starts `attestguard simulate apple` with the test scenario (or `scenario`, its options) and `faults`, and
    /// returns it with the `ATTESTGUARD_APPLE_*` variables that point a server or batch at it (receipts and DeviceCheck).
    static func startFakeApple(
        scenario: [String] = ["--risk-metric", "3", "--farm-fraction", "0.1", "--farm-risk-metric", "25"],
        faults: [String] = []
    ) async throws -> (ServerProcess, [String: String]) {
        let keyFile = try CommandLineRunner.temporaryFile(Array(P256.Signing.PrivateKey().pemRepresentation.utf8), name: "AuthKey.p8")
        let fake = try await ServerProcess(
            environment: ProcessInfo.processInfo.environment,
            arguments: ["simulate", "apple", "--port", "0", "--provider-key", keyFile, "--seed", "attestguard-tests"] + scenario + faults
        )
        let environment = [
            "ATTESTGUARD_APPLE_TEAM_ID": "ABCDE12345",
            "ATTESTGUARD_APPLE_KEY_ID": "KEY1234567",
            "ATTESTGUARD_APPLE_PRIVATE_KEY_FILE": keyFile,
            "ATTESTGUARD_APPLE_HOSTS_RECEIPTS_DEVELOPMENT": fake.baseURL.absoluteString,
            "ATTESTGUARD_APPLE_HOSTS_DEVICE_CHECK_DEVELOPMENT": fake.baseURL.absoluteString,
        ]
        return (fake, environment)
    }

    @Test("serve redeems a freshly attested key's receipt within seconds of attestation")
    func serveRedeemsNewKeys() async throws {
        let (fake, apple) = try await Self.startFakeApple()
        defer { fake.stop() }
        let sqlite = FileManager.default.temporaryDirectory.appendingPathComponent("attestguard-refresh-\(UUID().uuidString).sqlite").path
        var environment = ServerProcess.environment(databaseURL: nil, sqlitePath: sqlite).merging(apple) { _, new in new }
        environment["ATTESTGUARD_RECEIPTS_REFRESH_FIRST_REDEMPTION_DELAY_SECONDS"] = "1"
        environment["ATTESTGUARD_RECEIPTS_REFRESH_POLL_SECONDS"] = "1"
        let server = try await ServerProcess(environment: environment)
        defer { server.stop() }

        let app = ServeProcessTests.client(user: "rory", device: "rory-1")
        let challenge = try await server.challenge(purpose: "attestation", userId: "rory")
        let attested = try await server.post("v1/attestations", try app.attestation(challenge: challenge, at: Date()))
        #expect(attested.status == 201, "\(attested.json)")
        let expected = Self.scenario.riskMetric(forToken: app.device.token(for: app.key.keyId))
        let path = "v1/apps/\(SimulatorFixtures.app.appId)/keys/\(Base64Text.urlEncoded(app.key.keyId))"
        var receipt: [String: Any] = [:]
        for _ in 0..<300 {
            receipt = try await server.send("GET", path).json["receipt"] as? [String: Any] ?? [:]
            if receipt["type"] as? String == "RECEIPT" { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(receipt["type"] as? String == "RECEIPT", "\(receipt)")
        #expect(receipt["riskMetric"] as? Int == expected)
        #expect(receipt["metricStale"] as? Bool == false)
        #expect(receipt["lastOutcome"] as? String == "redeemed")
        #expect(receipt["nextRefreshAt"] is String && receipt["refreshedAt"] is String)
        #expect(server.stop() == 0)
    }

    @Test("a batch killed with SIGKILL halfway and started again finishes every key, duplicates bounded",
          .enabled(if: TestPostgres.isEnabled))
    func killedBatchResumes() async throws {
        let keyCount = Self.resumedKeyCount
        let rig = try await Rig.start(keyCount: keyCount)
        do {
            let first = try rig.batch()
            var killedAt = 0
            while first.isRunning {
                let redeemed = try await rig.stats().redeemed
                if redeemed >= keyCount / 3 {
                    killedAt = redeemed
                    first.kill()
                    break
                }
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(killedAt > 0 && killedAt < keyCount, "the first batch was killed part-way (at \(killedAt))")

            let second = try rig.batch()
            let finished = await second.wait()
            #expect(finished.status == 0, "\(finished.standardError)")
            let summary = finished.json
            #expect((summary["gaveUp"] as? Int) == 0 && (summary["failed"] as? Int) == 0)

            let stats = try await rig.stats()
            let injected = stats.injected(.throttled) + stats.injected(.serverError) + stats.injected(.dropped)
            // The killed process may have had one lease batch plus its in-flight requests answered but not committed.
            #expect(stats.redemptionRequests - keyCount <= injected + 16 + 32)
            let (wrong, rows) = try await rig.checkEveryKey()
            #expect(wrong == 0)
            #expect(rows <= keyCount + 16 + 32)
        } catch {
            await rig.stop()
            throw error
        }
        await rig.stop()
    }

    @Test("two batch processes on one PostgreSQL split the work", .enabled(if: TestPostgres.isEnabled))
    func twoBatchesShareTheWork() async throws {
        let keyCount = Self.sharedKeyCount
        let rig = try await Rig.start(keyCount: keyCount)
        do {
            // Each then sweeps every key with a rule that reviews a key with a risk metric: by then every receipt is
            // redeemed (a batch ends when nothing is due or held anywhere).
            let sweep = FileManager.default.temporaryDirectory.appendingPathComponent("sweep-rules-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: sweep, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: sweep) }
            try "version: 1\nrules:\n  - id: refreshed\n    when: receipt.risk_metric >= 0\n    decide: review\n"
                .write(to: sweep.appendingPathComponent("sweep.yaml"), atomically: true, encoding: .utf8)
            let sweeping = ["ATTESTGUARD_RULES_SWEEP_DIRECTORY": sweep.path]
            let (first, second) = (try rig.batch(sweeping), try rig.batch(sweeping))
            let (one, two) = (await first.wait(), await second.wait())
            #expect(one.status == 0 && two.status == 0, "\(one.standardError) \(two.standardError)")
            let (redeemedOne, redeemedTwo) = (one.json["redeemed"] as? Int ?? 0, two.json["redeemed"] as? Int ?? 0)
            #expect(redeemedOne > 0 && redeemedTwo > 0, "each process did a share: \(redeemedOne) + \(redeemedTwo)")
            #expect(redeemedOne + redeemedTwo >= keyCount)
            // Each ends with the day's risk-metric baselines: the one configured app's is computed by one of them.
            #expect((one.json["baselines"] as? Int ?? -1) + (two.json["baselines"] as? Int ?? -1) == 1, "\(one.standardOutput) \(two.standardOutput)")
            for summary in [one.json, two.json] {
                let swept = (summary["sweep"] as? [String: [String: Int]])?["ABCDE12345.com.example.attestguard"]
                #expect(swept == ["keys": keyCount, "flagged": keyCount, "failed": 0], "\(summary)")
            }
            let stats = try await rig.stats()
            let injected = stats.injected(.throttled) + stats.injected(.serverError) + stats.injected(.dropped)
            #expect(stats.redemptionRequests - keyCount <= injected)
            let (wrong, rows) = try await rig.checkEveryKey()
            #expect(wrong == 0)
            #expect(rows == keyCount)
        } catch {
            await rig.stop()
            throw error
        }
        await rig.stop()
    }
}

/// One `attestguard receipts refresh` process; its output goes to files, read once it exits.
final class BatchProcess: Sendable {
    private let process = Process()
    private let outputURL: URL
    private let errorURL: URL

    init(environment: [String: String]) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("attestguard-batch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        outputURL = directory.appendingPathComponent("stdout")
        errorURL = directory.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errorURL.path, contents: nil)
        process.executableURL = CommandLineRunner.executable
        process.arguments = ["receipts", "refresh", "--log-every", "1"]
        process.environment = environment
        process.standardOutput = try FileHandle(forWritingTo: outputURL)
        process.standardError = try FileHandle(forWritingTo: errorURL)
        try process.runWhenDescriptorsAllow()
    }

    var isRunning: Bool { process.isRunning }

    /// SIGKILL while it runs (once it has ended, its pid may be another process's), then waits for the exit.
    func kill() {
        if process.isRunning { Foundation.kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// Waits for the exit without blocking a thread, then reads what the process wrote.
    func wait() async -> CommandLineRunner.Result {
        while process.isRunning { try? await Task.sleep(for: .milliseconds(50)) }
        process.waitUntilExit()
        return CommandLineRunner.Result(
            status: process.terminationStatus,
            standardOutput: (try? String(contentsOf: outputURL, encoding: .utf8)) ?? "",
            standardError: (try? String(contentsOf: errorURL, encoding: .utf8)) ?? ""
        )
    }
}
