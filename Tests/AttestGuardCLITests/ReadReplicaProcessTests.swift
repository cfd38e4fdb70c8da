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
    /// The role of every read pool (`database.readUrl`): it must never run a statement on the primary.
    static let reader = "attestguard_reader"
    /// The role the analysts' CLI commands use on the primary (`database.url`).
    static let analyst = "attestguard_analyst"

    /// `url` with its user replaced by `role` (the test clusters trust every local login).
    static func url(_ url: String, role: String) -> String {
        url.replacingOccurrences(of: "postgres://postgres@", with: "postgres://\(role)@")
    }

    @Test("history, decisions and the backtest read the replica, never the primary; a lagging replica refuses them", .enabled(if: TestPostgres.isEnabled))
    func readsUseTheReplica() async throws {
        let primary = try await PostgresCluster.start(profile: "fast", options: Self.statementOptions)
        var clusters = [primary]
        var server: ServerProcess?
        do {
            try await primary.sql("CREATE EXTENSION pg_stat_statements")
            // Who reads is told by role, not by what a statement looks like: the read pools (server and CLI) log in
            // as `\(Self.reader)`, the analysts' CLI as `\(Self.analyst)` on the primary.
            try await primary.sql("CREATE ROLE \(Self.reader) LOGIN IN ROLE pg_read_all_data; CREATE ROLE \(Self.analyst) LOGIN SUPERUSER")
            let replica = try await primary.addStandby(options: Self.statementOptions)
            clusters.append(replica)
            var environment = ServerProcess.environment(databaseURL: primary.url, sqlitePath: nil)
            environment["ATTESTGUARD_DATABASE_READ_URL"] = Self.url(replica.url, role: Self.reader)
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
        var analystEnvironment = environment
        analystEnvironment["ATTESTGUARD_DATABASE_URL"] = Self.url(primary.url, role: Self.analyst)
        let cli = try await CommandLineRunner.run(["decisions", "--app", appId, "--user", "replica-user", "--json"], environment: analystEnvironment)
        #expect(cli.status == 0, "\(cli.standardError)")
        #expect((cli.json["decisions"] as? [Any])?.count ?? 0 >= 6)
        let history = try await CommandLineRunner.run(
            ["keys", "history", "--app", appId, "--key=\(Base64Text.urlEncoded(app.key.keyId))", "--json"], environment: analystEnvironment
        )
        #expect(history.status == 0, "\(history.standardError)")
        let backtest = try await CommandLineRunner.run(
            ["rules", "backtest", "--rules", RulesCommandTests.shipped, "--since", "1d", "--json"], environment: analystEnvironment
        )
        #expect(backtest.status == 0, "\(backtest.standardError)")
        app = try await traffic.value

        // What ran on the primary, by role: nothing from a read pool; from the analysts' CLI, nothing that names the
        // decision log or the risk history, however it is worded; from the server (its hot path reads the risk
        // history for the baseline), nothing that reads the decision log: only its writes and partition DDL, whose
        // table names are the statement's subject (pg_stat_statements turns the partition lookup's literal into $n).
        let readerOnPrimary = try await primary.sql(Self.statements(role: Self.reader))
        #expect(readerOnPrimary.isEmpty, "a read pool ran statements on the primary: \(readerOnPrimary)")
        let analystOnPrimary = try await primary.sql(Self.statements(role: Self.analyst, naming: "decision_log|risk_metric_history"))
        #expect(analystOnPrimary.isEmpty, "the analysts' reads reached the primary: \(analystOnPrimary)")
        let decisionReads = try await primary.sql(
            Self.statements(naming: "decision_log", excluding: #"^\s*(INSERT|CREATE|DROP|ALTER|DELETE)\M"#)
        )
        #expect(decisionReads.isEmpty, "the decision log was read on the primary: \(decisionReads)")
        #expect(Int(try await primary.sql("SELECT coalesce(sum(calls), 0) FROM pg_stat_statements WHERE query ILIKE '%advancing_key%'")) ?? 0 >= 10)
        // And the replica served them, through the read pools' role.
        let served = try await replica.sql(
            "SELECT coalesce(sum(calls), 0) FROM pg_stat_statements s JOIN pg_roles r ON r.oid = s.userid WHERE r.rolname = '\(Self.reader)' AND s.query ~* '\\m(decision_log|risk_metric_history)\\M'"
        )
        #expect(Int(served) ?? 0 >= 4, "the replica served the reads (\(served))")

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
        let (metrics, _) = try await URLSession.shared.dataShieldedFromCancellation(from: server.baseURL.appendingPathComponent("metrics"))
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

    /// A query listing (`calls x text`) the statements pg_stat_statements saw, of `role` if given, whose text names
    /// one of the tables in `naming` (a regular expression of names; a day's partition counts) if given, and does not match `excluding`.
    private static func statements(role: String? = nil, naming tables: String? = nil, excluding: String? = nil) -> String {
        var conditions = ["true"]
        if let role { conditions.append("r.rolname = '\(role)'") }
        if let tables { conditions.append("s.query ~* '\\m(\(tables))'") }
        if let excluding { conditions.append("s.query !~* '\(excluding)'") }
        return """
            SELECT coalesce(string_agg(s.calls || ' x ' || r.rolname || ': ' || left(s.query, 160), ' | '), '')
            FROM pg_stat_statements s JOIN pg_roles r ON r.oid = s.userid WHERE \(conditions.joined(separator: " AND "))
            """
    }

    private static func replicaStatus(_ server: ServerProcess) async throws -> String? {
        (try await server.send("GET", "readyz").json["replica"] as? [String: Any])?["status"] as? String
    }

}
