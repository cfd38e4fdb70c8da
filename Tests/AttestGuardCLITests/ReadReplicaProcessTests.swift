import AttestCore
import AttestTestSupport
import DeviceSimulator
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization
import Testing

/// `database.readUrl`: analysts' reads (decision search, key history, the backtest) go to a streaming replica while
/// the primary serves assertions, and are refused while the replica is further behind than its bound.
@Suite("PostgreSQL read replica", .serialized)
struct ReadReplicaProcessTests {
    static let appId = "ABCDE12345.com.example.attestguard"
    static let statementOptions = "-c shared_preload_libraries=pg_stat_statements"

    @Test("history, decisions and the backtest read the replica, never the primary; a lagging replica refuses them", .enabled(if: TestPostgres.isEnabled))
    func readsUseTheReplica() async throws {
        let primary = try await PostgresCluster.start(profile: "fast", options: Self.statementOptions)
        var clusters = [primary]
        var server: ServerProcess?
        do {
            try await primary.sql("CREATE EXTENSION pg_stat_statements")
            let replica = try await primary.addStandby(options: Self.statementOptions)
            clusters.append(replica)
            var environment = ServerProcess.environment(databaseURL: primary.url, sqlitePath: nil)
            environment["ATTESTGUARD_DATABASE_READ_URL"] = replica.url
            environment["ATTESTGUARD_DATABASE_READ_MAX_LAG_SECONDS"] = "2"
            let running = try await ServerProcess(environment: environment)
            server = running
            try await Self.check(server: running, environment: environment, primary: primary, replica: replica)
        } catch {
            server?.stop()
            for cluster in clusters { await cluster.stop() }
            throw error
        }
        #expect(server?.stop() == 0)
        for cluster in clusters { await cluster.stop() }
    }

    private static func check(server: ServerProcess, environment: [String: String], primary: PostgresCluster, replica: PostgresCluster) async throws {
        var app = ServeProcessTests.client(user: "replica-user", device: "replica-device")
        let challenge = try await server.challenge(purpose: "attestation", userId: app.userId)
        try #require(try await server.post("v1/attestations", try app.attestation(challenge: challenge, at: Date())).status == 201)
        for _ in 0..<5 {
            let next = try await server.challenge(purpose: "assertion", userId: app.userId, keyId: app.key.keyIdBase64)
            try #require(try await server.post("v1/assertions", app.assertion(challenge: next)).status == 200)
        }
        // The decision log is written behind the requests; the replica replays it.
        try await PostgresCluster.waitUntil("the replica has the decisions") {
            Int(try await replica.sql("SELECT count(*) FROM decision_log")) ?? 0 >= 6
        }
        try await PostgresCluster.waitUntil("the replica is ready") { try await replicaStatus(server) == "ready" }

        // The reads, while the primary serves assertions.
        _ = try await primary.sql("SELECT pg_stat_statements_reset()")
        let traffic = Task { [app] in
            var app = app
            for _ in 0..<10 {
                let next = try await server.challenge(purpose: "assertion", userId: app.userId, keyId: app.key.keyIdBase64)
                _ = try await server.post("v1/assertions", app.assertion(challenge: next))
            }
            return app
        }
        let api = try await server.send("GET", "v1/apps/\(appId)/decisions", query: "userId=replica-user")
        #expect(api.status == 200)
        #expect((api.json["decisions"] as? [Any])?.count ?? 0 >= 6, "\(api.json)")
        let cli = try await CommandLineRunner.run(["decisions", "--app", appId, "--user", "replica-user", "--json"], environment: environment)
        #expect(cli.status == 0, "\(cli.standardError)")
        #expect((cli.json["decisions"] as? [Any])?.count ?? 0 >= 6)
        let history = try await CommandLineRunner.run(
            ["keys", "history", "--app", appId, "--key=\(Base64Text.urlEncoded(app.key.keyId))", "--json"], environment: environment
        )
        #expect(history.status == 0, "\(history.standardError)")
        let backtest = try await CommandLineRunner.run(
            ["rules", "backtest", "--rules", RulesCommandTests.shipped, "--since", "1d", "--json"], environment: environment
        )
        #expect(backtest.status == 0, "\(backtest.standardError)")
        app = try await traffic.value

        // What read the primary: the assertions' statements, never an analyst's read of the decision log or the risk
        // history (the store's searches and the backtest's pages are `SELECT * FROM` those tables).
        let analystReads = """
            SELECT coalesce(sum(calls), 0) FROM pg_stat_statements
            WHERE query ~* '^\\s*SELECT \\* FROM (decision_log|risk_metric_history)\\M'
            """
        let onPrimary = try await primary.sql(analystReads)
        let offending = try await primary.sql(
            "SELECT string_agg(calls || ' x ' || left(query, 120), ' | ') FROM pg_stat_statements WHERE query ~* '^\\s*SELECT \\* FROM (decision_log|risk_metric_history)\\M'"
        )
        #expect(onPrimary == "0", "analysts' reads reached the primary: \(offending)")
        #expect(Int(try await primary.sql("SELECT coalesce(sum(calls), 0) FROM pg_stat_statements WHERE query ILIKE '%attestguard_commit_assertion%'")) ?? 0 >= 10)
        #expect(Int(try await replica.sql(analystReads)) ?? 0 >= 4, "the replica served the reads")

        // A replica that stops replaying falls behind; past the bound (2 s) its reads are refused, not answered stale.
        _ = try await replica.sql("SELECT pg_wal_replay_pause()")
        let writes = Task { [app] in
            var app = app
            while !Task.isCancelled {
                let next = try await server.challenge(purpose: "assertion", userId: app.userId, keyId: app.key.keyIdBase64)
                _ = try await server.post("v1/assertions", app.assertion(challenge: next))
                try await Task.sleep(for: .milliseconds(200))
            }
        }
        defer { writes.cancel() }
        try await PostgresCluster.waitUntil("the replica is lagging") { try await replicaStatus(server) == "lagging" }
        let refused = try await server.send("GET", "v1/apps/\(appId)/decisions", query: "userId=replica-user")
        #expect(refused.status == 503)
        #expect(refused.errorCode == "store_unavailable")
        let (metrics, _) = try await URLSession.shared.data(from: server.baseURL.appendingPathComponent("metrics"))
        let text = String(decoding: metrics, as: UTF8.self)
        #expect(text.contains("\nattestguard_store_replica_up 0"), "replica_up is 0 while it lags")
        #expect(text.contains("\nattestguard_store_primary_up 1"))
        let ready = try await server.send("GET", "readyz")
        #expect(ready.status == 200, "a lagging replica never makes the server unready")
        writes.cancel()
        _ = try await replica.sql("SELECT pg_wal_replay_resume()")
        try await PostgresCluster.waitUntil("the replica is ready again") { try await replicaStatus(server) == "ready" }
        #expect(try await server.send("GET", "v1/apps/\(appId)/decisions", query: "userId=replica-user").status == 200)
    }

    private static func replicaStatus(_ server: ServerProcess) async throws -> String? {
        (try await server.send("GET", "readyz").json["replica"] as? [String: Any])?["status"] as? String
    }

}
