import AttestTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// `attestguard serve` on a primary whose synchronous standby is killed: PostgreSQL holds every commit until the
/// standby returns, and postgres-nio's wait for the answer ignores cancellation. The store's deadline must answer
/// anyway (closing the connection), readiness and a metric must say why, a shutdown must not wait for the standby, and
/// everything answered 201 must be on the primary and, once the standby is back, on the standby.
@Suite("PostgreSQL: a lost synchronous standby (processes)", .serialized)
struct SynchronousStandbyProcessTests {
    /// The store deadline of these servers.
    static let deadline: Duration = .seconds(3)
    /// What a busy two-core runner may add to it (8.2 s was seen against a 3 s deadline while the process suites ran
    /// beside it); an unbounded wait is what fails (it would last until the standby returns, which these tests make
    /// it never do by itself).
    static let margin: Duration = .seconds(12)
    /// How long the standby stays down at least while writes go on: by default until readiness has shown it, at
    /// most a minute; `ATTESTGUARD_TEST_STANDBY_DOWN_SECONDS=30` runs the outage of the failover runbook by hand.
    static let downAtLeast: Duration = .seconds(Int(ProcessInfo.processInfo.environment["ATTESTGUARD_TEST_STANDBY_DOWN_SECONDS"] ?? "") ?? 0)

    /// A primary that waits for its streaming standby at every commit (`synchronous_commit`, the standby named by
    /// `synchronous_standby_names`; no fsync, which a standby's absence does not need and the suite's two cores
    /// cannot spare), the standby, and a server on the primary.
    static func withServer(_ body: (ServerProcess, PostgresCluster, PostgresCluster) async throws -> Void) async throws {
        let primary = try await PostgresCluster.start(profile: "fast", options: "-c synchronous_commit=on")
        var clusters = [primary]
        do {
            let standby = try await primary.addStandby()
            clusters.append(standby)
            var environment = ServerProcess.environment(databaseURL: primary.url, sqlitePath: nil)
            // The schema first, a few dozen commits, under the suite's own store deadline and before replication is
            // synchronous: on two busy cores a migration can outlast the short deadline the server runs with.
            let migrated = try await CommandLineRunner.run(["migrate"], environment: environment)
            try #require(migrated.status == 0, "migrate: \(migrated.standardError)")
            environment["ATTESTGUARD_DATABASE_TIMEOUT_MILLISECONDS"] = String(deadline.components.seconds * 1_000)
            // Room beside the held writes and the write-behind flushes (held too) for readiness's read.
            environment["ATTESTGUARD_DATABASE_POOL_SIZE"] = "32"
            // The server's own start (a few reads and a heartbeat) also runs before replication is synchronous, so
            // that a busy machine's standby cannot hold it past the short deadline. The server reads the setting live.
            let server = try await ServerProcess(environment: environment)
            do {
                try await primary.sql("ALTER SYSTEM SET synchronous_standby_names = '*'")
                try await primary.sql("SELECT pg_reload_conf()")
                try await waitUntilSynchronous(primary)
                try await body(server, primary, standby)
            } catch {
                server.stop()
                throw error
            }
            server.stop()
        } catch {
            for cluster in clusters { await cluster.stop() }
            throw error
        }
        for cluster in clusters { await cluster.stop() }
    }

    static func waitUntilSynchronous(_ primary: PostgresCluster) async throws {
        try await PostgresCluster.waitUntil("the standby is synchronous") { try await primary.sql("SELECT sync_state FROM pg_stat_replication") == "sync" }
    }

    /// Waits until `cluster` holds a challenge for each of `users`.
    static func waitUntil(_ cluster: PostgresCluster, holds users: Set<String>, _ what: String) async throws {
        var missing = users
        do {
            try await PostgresCluster.waitUntil(what, within: .seconds(30)) {
                let stored = Set(try await cluster.sql("SELECT user_id FROM challenges").split(separator: "\n").map(String.init))
                missing = users.subtracting(stored)
                return missing.isEmpty
            }
        } catch {
            Issue.record("answered 201 but missing (\(what)): \(missing.sorted())")
        }
    }

    /// `POST /v1/challenges` (a write), with how long it took.
    static func write(_ server: ServerProcess, user: String) async throws -> (ServerProcess.Reply, Duration) {
        let started = ContinuousClock.now
        let reply = try await server.post("v1/challenges", ["appId": "ABCDE12345.com.example.attestguard", "purpose": "attestation", "userId": user])
        return (reply, ContinuousClock.now - started)
    }

    @Test("writes answer 503 at their deadline, readiness and metrics say why, and what was answered 201 is kept on both", .enabled(if: TestPostgres.isEnabled))
    func writesAreBounded() async throws {
        try await Self.withServer { server, primary, standby in
            var stored: Set<String> = []
            #expect(try await Self.write(server, user: "before").0.status == 201)
            stored.insert("before")
            try await standby.kill()
            let killedAt = ContinuousClock.now

            // Four writes at once (under URLSession's six connections a host, so that none waits for another): each
            // held by PostgreSQL, each answered at the deadline.
            var answers = try await withThrowingTaskGroup(of: (ServerProcess.Reply, Duration).self) { group in
                for index in 0..<4 { group.addTask { try await Self.write(server, user: "held-\(index)") } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            // While writes keep waiting, readiness stays ready and names the standby. The server probes once a
            // second for commits that have waited over a second: writes go on until it has seen some, however late
            // a busy machine runs the probe, and for `downAtLeast`.
            let writers = Task {
                await withTaskGroup(of: [(ServerProcess.Reply, Duration)].self) { group in
                    for writer in 0..<2 {
                        group.addTask {
                            var answered: [(ServerProcess.Reply, Duration)] = []
                            var round = 0
                            while !Task.isCancelled {
                                // A write cancelled with the task ends in a URLError: not an answer.
                                if let answer = try? await Self.write(server, user: "waiting-\(writer)-\(round)") { answered.append(answer) }
                                round += 1
                            }
                            return answered
                        }
                    }
                    return await group.reduce(into: []) { $0 += $1 }
                }
            }
            var readiness: [String: Any]?
            let probing = ContinuousClock.now
            while readiness == nil || ContinuousClock.now - killedAt < Self.downAtLeast, ContinuousClock.now - probing < .seconds(60) + Self.downAtLeast {
                let ready = try await server.send("GET", "readyz")
                #expect(ready.status == 200, "readiness while the standby is lost: \(ready.status)")
                readiness = readiness ?? ready.json["standby"] as? [String: Any]
                try await Task.sleep(for: .milliseconds(200))
            }
            writers.cancel()
            answers += await writers.value
            #expect(readiness?["status"] as? String == "unavailable", "readyz while commits wait: \(String(describing: readiness))")
            #expect((readiness?["commitsWaiting"] as? Int ?? 0) >= 1)
            for (reply, took) in answers {
                #expect(reply.status == 503 && reply.errorCode == "store_unavailable", "\(reply.status) \(reply.json)")
                #expect(took < Self.deadline + Self.margin, "a write waited \(took)")
            }

            let metrics = String(decoding: try await URLSession.shared.dataShieldedFromCancellation(from: server.baseURL.appendingPathComponent("metrics")).0, as: UTF8.self)
            let timedOut = metrics.split(separator: "\n").first { $0.hasPrefix("attestguard_store_operations_timed_out_total ") }
            #expect(timedOut.flatMap { Double($0.split(separator: " ").last ?? "") } ?? 0 >= 4, "\(String(describing: timedOut))")
            #expect(metrics.contains("\nattestguard_store_commits_waiting_on_standby "))

            try await standby.restart()
            let down = ContinuousClock.now - killedAt
            try await Self.waitUntilSynchronous(primary)
            // The closed connections are gone from the pool: the next writes get fresh ones.
            for index in 0..<4 {
                #expect(try await Self.write(server, user: "after-\(index)").0.status == 201)
                stored.insert("after-\(index)")
            }
            #expect(try await server.send("GET", "readyz").status == 200)
            // Everything answered 201 is on the primary and, once it has caught up, on the standby.
            try await Self.waitUntil(primary, holds: stored, "on the primary")
            try await Self.waitUntil(standby, holds: stored, "on the standby")
            // The 503s are logged at error, as every 5xx; nothing else is.
            let others = server.errorLines.filter { !$0.contains("code=store_unavailable") }
            #expect(others.isEmpty, "\(others)")
            print("""
                lost standby: down \(down); \(answers.count) writes answered while it was, slowest \(answers.map(\.1).max() ?? .zero) \
                (deadline \(Self.deadline)); readiness \(String(describing: readiness))
                """)
        }
    }

    @Test("SIGTERM while commits wait for the lost standby: the server exits within its shutdown budget", .enabled(if: TestPostgres.isEnabled))
    func shutdownIsBounded() async throws {
        try await Self.withServer { server, primary, standby in
            #expect(try await Self.write(server, user: "before").0.status == 201)
            try await standby.kill()
            let held = Task { try? await Self.write(server, user: "held") }
            // The write reaches PostgreSQL and waits there.
            try await PostgresCluster.waitUntil("a commit waits for the standby", within: .seconds(30)) {
                Int(try await primary.sql("SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'SyncRep'")) ?? 0 >= 1
            }
            // 10 s to drain requests and 5 s for the last flush (the documented budget), and the margin.
            let took = await server.terminate(within: .seconds(15) + Self.margin)
            #expect(took != nil, "the server did not exit within its budget")
            _ = await held.value
        }
    }
}
