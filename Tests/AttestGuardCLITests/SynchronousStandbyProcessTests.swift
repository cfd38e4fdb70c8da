import AttestTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// `attestguard serve` on a primary whose synchronous standby is gone: PostgreSQL holds every commit until the
/// standby returns, and postgres-nio's wait for the answer ignores cancellation. The store's deadline must answer
/// anyway (closing the connection), readiness and a metric must say why, and a shutdown must not wait for the standby.
@Suite("PostgreSQL: a lost synchronous standby (processes)", .serialized)
struct SynchronousStandbyProcessTests {
    /// The store deadline of these servers.
    static let deadline: Duration = .seconds(3)
    /// What a busy two-core runner may add to it; an unbounded wait is what fails (it would last until the standby
    /// returns, which these tests make it never do by itself).
    static let margin: Duration = .seconds(5)

    /// A cluster that waits for its standby at commit (`synchronous_commit`; no fsync, which a standby's absence
    /// does not need and the suite's two cores cannot spare), a server on it, and a way to lose the standby:
    /// `synchronous_standby_names` naming one that never connects.
    static func withServer(_ body: (ServerProcess, PostgresCluster) async throws -> Void) async throws {
        let cluster = try await PostgresCluster.start(profile: "fast", options: "-c synchronous_commit=on")
        var environment = ServerProcess.environment(databaseURL: cluster.url, sqlitePath: nil)
        environment["ATTESTGUARD_DATABASE_TIMEOUT_MILLISECONDS"] = String(deadline.components.seconds * 1_000)
        // Room beside the held writes and the write-behind flushes (held too) for readiness's read.
        environment["ATTESTGUARD_DATABASE_POOL_SIZE"] = "32"
        do {
            let server = try await ServerProcess(environment: environment)
            try await body(server, cluster)
            server.stop()
        } catch {
            await cluster.stop()
            throw error
        }
        await cluster.stop()
    }

    static func loseStandby(_ cluster: PostgresCluster) async throws {
        try await cluster.sql("ALTER SYSTEM SET synchronous_standby_names = 'lost_standby'")
        try await cluster.sql("SELECT pg_reload_conf()")
    }

    static func restoreStandby(_ cluster: PostgresCluster) async throws {
        try await cluster.sql("ALTER SYSTEM RESET synchronous_standby_names")
        try await cluster.sql("SELECT pg_reload_conf()")
    }

    /// `POST /v1/challenges` (a write), with how long it took.
    static func write(_ server: ServerProcess, user: String) async throws -> (ServerProcess.Reply, Duration) {
        let started = ContinuousClock.now
        let reply = try await server.post("v1/challenges", ["appId": "ABCDE12345.com.example.attestguard", "purpose": "attestation", "userId": user])
        return (reply, ContinuousClock.now - started)
    }

    @Test("writes answer 503 at their deadline, readiness and metrics say why, and writes succeed once the standby returns", .enabled(if: TestPostgres.isEnabled))
    func writesAreBounded() async throws {
        try await Self.withServer { server, cluster in
            #expect(try await Self.write(server, user: "before").0.status == 201)
            try await Self.loseStandby(cluster)

            // Four writes at once (under URLSession's six connections a host, so that none waits for another): each
            // held by PostgreSQL, each answered at the deadline.
            let answers = try await withThrowingTaskGroup(of: (ServerProcess.Reply, Duration).self) { group in
                for index in 0..<4 { group.addTask { try await Self.write(server, user: "held-\(index)") } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            for (reply, took) in answers {
                #expect(reply.status == 503 && reply.errorCode == "store_unavailable", "\(reply.status) \(reply.json)")
                #expect(took < Self.deadline + Self.margin, "a write waited \(took)")
            }
            // While writes keep waiting, readiness stays ready and names the standby. The server probes once a
            // second for commits that have waited over a second: writes go on until it has seen some, however late
            // a busy machine runs the probe.
            let writers = Task {
                await withTaskGroup { group in
                    for writer in 0..<2 {
                        group.addTask {
                            var round = 0
                            while !Task.isCancelled {
                                _ = try? await Self.write(server, user: "waiting-\(writer)-\(round)")
                                round += 1
                            }
                        }
                    }
                }
            }
            var standby: [String: Any]?
            let probing = ContinuousClock.now
            while standby == nil, ContinuousClock.now - probing < .seconds(60) {
                let ready = try await server.send("GET", "readyz")
                standby = ready.json["standby"] as? [String: Any]
                if standby == nil { try await Task.sleep(for: .milliseconds(200)) }
            }
            writers.cancel()
            await writers.value
            #expect(standby?["status"] as? String == "unavailable", "readyz while commits wait: \(String(describing: standby))")
            #expect((standby?["commitsWaiting"] as? Int ?? 0) >= 1)

            let metrics = String(decoding: try await URLSession.shared.data(from: server.baseURL.appendingPathComponent("metrics")).0, as: UTF8.self)
            let timedOut = metrics.split(separator: "\n").first { $0.hasPrefix("attestguard_store_operations_timed_out_total ") }
            #expect(timedOut.flatMap { Double($0.split(separator: " ").last ?? "") } ?? 0 >= 4, "\(String(describing: timedOut))")
            #expect(metrics.contains("\nattestguard_store_commits_waiting_on_standby "))

            try await Self.restoreStandby(cluster)
            // The closed connections are gone from the pool: the next writes get fresh ones.
            for index in 0..<4 { #expect(try await Self.write(server, user: "after-\(index)").0.status == 201) }
            let ready = try await server.send("GET", "readyz")
            #expect(ready.status == 200)
            // The 503s are logged at error, as every 5xx; nothing else is.
            let others = server.errorLines.filter { !$0.contains("code=store_unavailable") }
            #expect(others.isEmpty, "\(others)")
        }
    }

    @Test("SIGTERM while commits wait for the lost standby: the server exits within its shutdown budget", .enabled(if: TestPostgres.isEnabled))
    func shutdownIsBounded() async throws {
        try await Self.withServer { server, cluster in
            #expect(try await Self.write(server, user: "before").0.status == 201)
            try await Self.loseStandby(cluster)
            let held = Task { try? await Self.write(server, user: "held") }
            // The write reaches PostgreSQL and waits there.
            try await PostgresCluster.waitUntil("a commit waits for the standby", within: .seconds(30)) {
                Int(try await cluster.sql("SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'SyncRep'")) ?? 0 >= 1
            }
            // 10 s to drain requests and 5 s for the last flush (the documented budget), and the margin.
            let took = await server.terminate(within: .seconds(15) + Self.margin)
            #expect(took != nil, "the server did not exit within its budget")
            _ = await held.value
            try await Self.restoreStandby(cluster)
        }
    }
}
