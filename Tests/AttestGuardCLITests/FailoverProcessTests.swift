import AttestCore
import AttestTestSupport
import DeviceSimulator
import Foundation
import Synchronization
import Testing

/// What survives a PostgreSQL failover: a durable primary with a synchronous streaming standby, two
/// `attestguard serve` processes with both hosts in `database.url`, simulated devices asserting at a steady rate, the
/// primary killed with SIGKILL mid-load and the standby promoted.
@Suite("PostgreSQL failover", .serialized)
struct FailoverProcessTests {
    static let devices = 8
    /// The pause between one device's rounds (challenge, then assertion): about 8 × 1/0.03 ≈ 250 requests/s in all.
    static let pace: Duration = .milliseconds(30)
    /// What two busy cores may add to a bound (the store's deadline, the shutdown budget); a wait without a bound is
    /// what fails.
    static let margin: Duration = .seconds(5)

    /// One request of the load and its answer.
    struct Attempt: Sendable {
        enum Route: String, Sendable { case challenge, assertion }
        var device: Int
        var server: Int
        var route: Route
        var at: ContinuousClock.Instant
        var status: Int
        var code: String?
        /// How long the answer took.
        var took: Duration
        /// The assertion's counter, as the device signed it.
        var counter: Int
        var body: Data?
    }

    /// What the devices' tasks share: the answers so far, and when to stop.
    final class Load: Sendable {
        let attempts = Mutex<[Attempt]>([])
        let stop = Atomic<Bool>(false)

        var recorded: [Attempt] { attempts.withLock { $0 } }

        func record(_ attempt: Attempt) {
            attempts.withLock { $0.append(attempt) }
        }
    }

    @Test("SIGKILL of the primary mid-load: nothing acknowledged is lost, nothing accepted twice, failures are 503", .enabled(if: TestPostgres.isEnabled))
    func primaryKilledMidLoad() async throws {
        let primary = try await PostgresCluster.start(profile: "durable")
        var clusters = [primary]
        var servers: [ServerProcess] = []
        do {
            let standby = try await primary.addStandby()
            clusters.append(standby)
            let url = "postgres://postgres@127.0.0.1:\(primary.port),127.0.0.1:\(standby.port)/postgres?sslmode=disable"
            var environment = ServerProcess.environment(databaseURL: url, sqlitePath: nil)
            // The schema first, under the suite's own store deadline: on two busy cores the migration's one
            // transaction can outlast the short deadline the servers run with.
            let migrated = try await CommandLineRunner.run(["migrate"], environment: environment)
            try #require(migrated.status == 0, "migrate: \(migrated.standardError)")
            environment["ATTESTGUARD_DATABASE_TIMEOUT_MILLISECONDS"] = "5000"
            // The store's own lines (host chosen, host lost) are at info; request lines are left out of what is printed.
            environment["ATTESTGUARD_LOG_LEVEL"] = "info"
            // Started before replication is synchronous, so that a busy machine's standby cannot hold their first
            // writes past the deadline; commits wait for the standby from the reload on.
            servers.append(try await ServerProcess(environment: environment))
            servers.append(try await ServerProcess(environment: environment))
            // Named after the copy, so that the promoted standby does not wait for a standby of its own.
            try await primary.sql("ALTER SYSTEM SET synchronous_standby_names = '*'")
            try await primary.sql("SELECT pg_reload_conf()")
            try await PostgresCluster.waitUntil("the standby is synchronous") { try await primary.sql("SELECT sync_state FROM pg_stat_replication") == "sync" }
            #expect(try await primary.sql("SELECT current_setting('fsync') || current_setting('synchronous_commit')") == "onon")
            try await Self.run(servers: servers, primary: primary, standby: standby)
        } catch {
            for server in servers { server.stop() }
            Self.keepLogs(of: servers)
            for cluster in clusters { await cluster.stop() }
            throw error
        }
        // A graceful shutdown after the failover, within the budget (10 s to drain, 5 s for the last flush).
        for server in servers {
            let took = await server.terminate(within: .seconds(15) + Self.margin)
            #expect(took != nil && server.process.terminationStatus == 0, "graceful shutdown after the failover: \(String(describing: took))")
        }
        Self.keepLogs(of: servers)
        for cluster in clusters { await cluster.stop() }
    }

    private static func run(servers: [ServerProcess], primary: PostgresCluster, standby: PostgresCluster) async throws {
        var apps: [SimulatedAppClient] = []
        for device in 0..<devices {
            let app = ServeProcessTests.client(user: "fo-\(device)", device: "fo-device-\(device)")
            let challenge = try await servers[device % 2].challenge(purpose: "attestation", userId: app.userId)
            let attested = try await servers[device % 2].post("v1/attestations", try app.attestation(challenge: challenge, at: Date()))
            try #require(attested.status == 201, "\(attested.json)")
            apps.append(app)
        }

        let load = Load()
        let attested = apps
        let devicesDone = Task {
            await withTaskGroup { group in
                for (device, app) in attested.enumerated() {
                    group.addTask { await Self.drive(device: device, app: app, servers: servers, load: load) }
                }
            }
        }

        let killedAt: ContinuousClock.Instant
        let promotedAt: ContinuousClock.Instant
        do {
            // The load first answers assertions: on two busy cores the first rounds can take longer than any fixed wait.
            try await PostgresCluster.waitUntil("the load has assertions accepted", within: .seconds(120)) {
                load.recorded.contains { $0.route == .assertion && $0.status == 200 }
            }
            // The kill lands inside commits: the standby stops confirming, commits pile up waiting for it (committed on
            // the primary, unconfirmed), and the primary dies under them. None of them may be answered 200.
            try await standby.freeze(true)
            try await PostgresCluster.waitUntil("commits wait for the frozen standby", within: .seconds(10)) {
                Int(try await primary.sql("SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'SyncRep'")) ?? 0 >= 1
            }
            killedAt = .now
            try await primary.kill()
            try await standby.freeze(false)
            try await Task.sleep(for: .seconds(1))
            try await standby.promote()
            promotedAt = .now
            // Load goes on until both servers have served assertions for 2 s after the promotion, or 20 s have passed.
            try await PostgresCluster.waitUntil("both servers serve again", within: .seconds(20)) {
                let attempts = load.recorded
                return (0..<servers.count).allSatisfy { server in
                    attempts.contains { $0.server == server && $0.route == .assertion && $0.status == 200 && $0.at > promotedAt + .seconds(2) }
                }
            }
        } catch {
            // The devices stop in any case: a server being stopped must not be kept busy.
            load.stop.store(true, ordering: .relaxed)
            await devicesDone.value
            throw error
        }
        load.stop.store(true, ordering: .relaxed)
        await devicesDone.value
        let all = load.recorded
        let assertions = all.filter { $0.route == .assertion }
        let accepted = assertions.filter { $0.status == 200 }

        // Every assertion answered 200 before, during and after: its challenge is consumed in the new primary, with
        // its counter.
        let consumed = Set(try await standby.sql(
            "SELECT encode(consumed_key_id, 'hex') || ':' || consumed_counter FROM challenges WHERE consumed_at IS NOT NULL"
        ).split(separator: "\n").map(String.init))
        let keyHex = apps.map { $0.key.keyId.map { String(format: "%02x", $0) }.joined() }
        let missing = accepted.filter { !consumed.contains("\(keyHex[$0.device]):\($0.counter)") }
        #expect(missing.isEmpty, "answered 200 but not in the new primary: \(missing.map { "device \($0.device) counter \($0.counter)" })")
        for (device, app) in apps.enumerated() {
            let stored = try await servers[0].send("GET", "v1/apps/ABCDE12345.com.example.attestguard/keys/\(Base64Text.urlEncoded(app.key.keyId))")
            let highest = accepted.filter { $0.device == device }.map(\.counter).max() ?? 0
            #expect((stored.json["counter"] as? Int ?? -1) >= highest, "device \(device)'s counter is behind its last 200")
        }

        // Every failure was 503 store_unavailable: never a 500, never another refusal.
        let failures = all.filter { !(200..<300).contains($0.status) }
        let unexpected = failures.filter { $0.status != 503 || $0.code != "store_unavailable" }
        #expect(unexpected.isEmpty, "failures other than 503 store_unavailable: \(unexpected.map { "\($0.route) \($0.status) \($0.code ?? "-")" })")

        // Replays: every accepted assertion is refused (409); one that failed is accepted now only if the new primary
        // does not hold it, and is otherwise refused.
        var replayAccepted = 0
        for attempt in assertions {
            guard let body = attempt.body else { continue }
            let replay = try await servers[attempt.device % 2].send("POST", "v1/assertions", body: body)
            if attempt.status == 200 {
                #expect(replay.status == 409, "replay of an accepted assertion: \(replay.status) \(replay.json)")
            } else if replay.status == 200 {
                replayAccepted += 1
                #expect(!consumed.contains("\(keyHex[attempt.device]):\(attempt.counter)"), "a stored assertion was accepted again")
            } else {
                // Refused as a replay, or because a later assertion of the device moved the counter past it.
                let refused = replay.status == 409 || (replay.status == 422 && replay.errorCode == "counter_not_increasing")
                #expect(refused, "replay of a failed assertion: \(replay.status) \(replay.json)")
            }
        }

        // No request waited past the store's deadline (5 s) and a margin for two busy cores, as each server timed it
        // (its request lines). The client's own measure also holds the test process's share of the cores, which the
        // rest of the suite runs on: there it only has to show that nothing hung.
        let serverDurations = servers.flatMap { Self.requestDurations(in: $0.standardError) }
        #expect(serverDurations.count >= all.filter { $0.status != 0 }.count, "every answer has its request line")
        let serverSlowest = serverDurations.max() ?? .zero
        #expect(serverSlowest < .seconds(5) + Self.margin, "a server took \(serverSlowest) to answer a request")
        let slowest = all.map(\.took).max() ?? .zero
        let slow = all.filter { $0.took > .seconds(5) }.map { attempt in
            "\(attempt.route.rawValue) to server \(attempt.server): sent \(attempt.at - attempt.took - killedAt) after the kill, "
                + "answered \(attempt.status) \(attempt.code ?? "-") in \(attempt.took)"
        }
        #expect(slowest < .seconds(5) + Self.margin * 2, "a request took \(slowest); the slow ones: \(slow)")

        // Both servers serve again within 10 s of the promotion, without a restart.
        var recovery: [Duration] = []
        for server in 0..<servers.count {
            let first = try #require(accepted.filter { $0.server == server && $0.at > promotedAt }.map(\.at).min())
            recovery.append(first - promotedAt)
            #expect(first - promotedAt < .seconds(10), "server \(server) served again \(first - promotedAt) after the promotion")
        }

        let firstFailure = failures.map(\.at).min()
        let lastFailure = failures.map(\.at).max()
        let window = firstFailure.flatMap { first in lastFailure.map { $0 - first } } ?? .zero
        print("""
            failover: primary killed; promotion \(promotedAt - killedAt) later; failures from \
            \(firstFailure.map { "\($0 - killedAt)" } ?? "-") to \(lastFailure.map { "\($0 - killedAt)" } ?? "-") after the kill \
            (outage window \(window)); slowest answer \(slowest) (\(serverSlowest) in the servers); first 200 after the promotion: \(recovery.map { "\($0)" }.joined(separator: ", ")); \
            assertions 200: \(accepted.count), 503: \(assertions.filter { $0.status == 503 }.count); challenges 201: \
            \(all.filter { $0.route == .challenge && $0.status == 201 }.count), 503: \(all.filter { $0.route == .challenge && $0.status == 503 }.count); \
            failed assertions accepted on replay: \(replayAccepted); answers by status: \(Dictionary(grouping: all, by: \.status).mapValues(\.count).sorted { $0.key < $1.key })
            """)
        #expect(accepted.contains { $0.at < killedAt }, "the load ran before the kill")
    }

    /// One device's rounds until `stop`: a challenge from one server, the assertion to the same, the next round to
    /// the other server.
    private static func drive(device: Int, app: SimulatedAppClient, servers: [ServerProcess], load: Load) async {
        var app = app
        var round = 0
        while !load.stop.load(ordering: .relaxed) {
            let server = (device + round) % servers.count
            round += 1
            var asked = ContinuousClock.now
            let issued = try? await servers[server].post("v1/challenges", [
                "appId": "ABCDE12345.com.example.attestguard", "purpose": "assertion", "userId": app.userId, "keyId": app.key.keyIdBase64,
            ])
            load.record(Attempt(
                device: device, server: server, route: .challenge, at: .now, status: issued?.status ?? 0, code: issued?.errorCode,
                took: .now - asked, counter: Int(app.key.counter), body: nil
            ))
            if let issued, issued.status == 201, let challenge = issued.json["challenge"] as? String,
                let body = try? JSONEncoder().encode(app.assertion(challenge: challenge))
            {
                let counter = Int(app.key.counter)
                asked = .now
                let reply = try? await servers[server].send("POST", "v1/assertions", body: body)
                load.record(Attempt(
                    device: device, server: server, route: .assertion, at: .now, status: reply?.status ?? 0,
                    code: reply?.errorCode, took: .now - asked, counter: counter, body: body
                ))
            }
            try? await Task.sleep(for: pace)
        }
    }

    /// How long each request took, as a server's request lines (`msg=request ... duration_ms=12.3`) say.
    static func requestDurations(in log: String) -> [Duration] {
        log.split(separator: "\n").compactMap { line -> Duration? in
            guard line.contains("msg=request "), let field = line.split(separator: " ").first(where: { $0.hasPrefix("duration_ms=") }),
                let milliseconds = Double(field.dropFirst("duration_ms=".count))
            else { return nil }
            return .microseconds(Int64(milliseconds * 1_000))
        }
    }

    /// Where the servers' logs stay after a run (git-ignored), for a failure in CI to be read.
    static let artefacts = PostgresCluster.repository.appendingPathComponent("test-artefacts/failover")

    private static func keepLogs(of servers: [ServerProcess]) {
        try? FileManager.default.createDirectory(at: artefacts, withIntermediateDirectories: true)
        for (index, server) in servers.enumerated() {
            try? Data(server.stopAndReadLog().utf8).write(to: artefacts.appendingPathComponent("server-\(index).log"))
        }
    }

}
