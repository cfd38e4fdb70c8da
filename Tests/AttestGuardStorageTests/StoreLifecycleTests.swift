import AttestTestSupport
import Foundation
import Logging
import PostgresNIO
import Synchronization
import AttestGuardStore
import AttestGuardPostgres
import AttestGuardSQLite
import Testing

@Suite("Store schema and lifecycle")
struct StoreLifecycleTests {
    @Test("a restart keeps keys, counters, receipts and unexpired challenges", arguments: StoreBackend.available)
    func restartLosesNothing(backend: StoreBackend) async throws {
        let first = try await TestStore.make(backend)
        let key = try await StoreFixtures.register(StoreFixtures.key(), in: first.store)
        _ = try await StoreFixtures.assert(key, counter: 41, in: first.store)
        let pending = StoreFixtures.challenge(keyId: key.keyId)
        _ = try await first.store.issueChallenge(pending, quota: StoreFixtures.quota)
        await first.close()

        let second = try await first.reopen()
        defer { Task { await second.close() } }
        let stored = try #require(try await second.store.key(appId: key.appId, keyId: key.keyId))
        #expect(stored.counter == 41)
        #expect(try await second.store.receipt(appId: key.appId, keyId: key.keyId) == StoreFixtures.receipt(for: key))
        #expect(try await second.store.challenge(id: pending.id)?.challenge == pending)
        let commit = AssertionCommit(claim: StoreFixtures.claim(pending, key: key), counter: 42, requestContext: nil)
        #expect(try await second.store.commitAssertion(commit) .isCommitted == true)
        await second.close()
        await first.discard()
    }

    @Test("a second process on the same SQLite file is refused")
    func sqliteSingleProcess() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("attestguard-\(UUID().uuidString).sqlite").path
        let first = try await SQLiteRiskStore.open(path: path, logger: TestStore.logger)
        await #expect(throws: StoreError.self) {
            _ = try await SQLiteRiskStore.open(path: path, logger: TestStore.logger)
        }
        do {
            _ = try await SQLiteRiskStore.open(path: path, logger: TestStore.logger)
        } catch let error as StoreError {
            #expect(error.code == .locked)
        }
        await first.close()
    }

    @Test("the embedded migrations are exactly the files in SQL/")
    func embeddedMigrationsMatchFiles() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        for (dialect, embedded) in [("postgres", Migration.postgres), ("sqlite", Migration.sqlite)] {
            let folder = root.appendingPathComponent("SQL/\(dialect)")
            let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".sql") }.sorted()
            #expect(files.count == embedded.count, "the build embeds SQL/\(dialect) (EmbedResources plugin): a stale build folder?")
            for (file, migration) in zip(files, embedded) {
                let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
                #expect(file == String(format: "%04d_%@.sql", migration.version, migration.name))
                #expect(text.trimmingCharacters(in: .newlines) == migration.sql, "SQL/\(dialect)/\(file) differs from the embedded copy: a stale build folder?")
            }
        }
    }

    @Test("migration statements split at top-level semicolons only")
    func statementSplitting() {
        let script = """
            -- a comment; with a semicolon
            CREATE TABLE a (x text DEFAULT 'a;b');
            /* block; comment */ CREATE FUNCTION f() RETURNS int AS $$ SELECT 1; $$ LANGUAGE sql;
            """
        #expect(Migration(version: 1, name: "x", sql: script).statements == [
            "CREATE TABLE a (x text DEFAULT 'a;b')",
            "CREATE FUNCTION f() RETURNS int AS $$ SELECT 1; $$ LANGUAGE sql",
        ])
    }

    @Test("the hot tables' columns refuse the values their checks refuse (domains since schema 38)", arguments: StoreBackend.postgresOnly)
    func hotTableValuesAreChecked(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let store = try #require(test.store as? PostgresRiskStore)
            let key = try await StoreFixtures.register(StoreFixtures.key(deviceId: "checks"), in: store)
            _ = try await store.issueChallenge(StoreFixtures.challenge(keyId: key.keyId), quota: StoreFixtures.quota)
            let logger = Logger(label: "test")
            let refused: [PostgresQuery] = [
                "UPDATE app_keys SET environment = 'staging'",
                "UPDATE app_keys SET status = 'bogus'",
                "UPDATE app_keys SET counter = -1",
                "UPDATE challenges SET purpose = 'login'",
            ]
            try await store.client().withConnection { connection in
                for query in refused {
                    do {
                        try await connection.query(query, logger: logger)
                        Issue.record("accepted: \(query.sql)")
                    } catch let error as PSQLError {
                        #expect(error.serverInfo?[.sqlState] == "23514", "\(query.sql): \(String(reflecting: error))")
                    }
                }
                // What the checks allow still goes in.
                try await connection.query("UPDATE app_keys SET environment = 'production', status = 'revoked', counter = 7", logger: logger)
                try await connection.query("UPDATE challenges SET purpose = 'attestation'", logger: logger)
            }
        }
    }

    @Test("a database with a newer schema is refused")
    func newerSchemaRefused() throws {
        #expect(throws: StoreError.self) {
            try SchemaStatus(applied: [1, 2, 99], known: Migration.sqlite)
        }
        let outdated = try SchemaStatus(applied: [], known: Migration.sqlite)
        #expect(throws: StoreError.self) { try outdated.requireCurrent() }
        try SchemaStatus(applied: Set(Migration.sqlite.map(\.version)), known: Migration.sqlite).requireCurrent()
    }

    @Test("an unreachable PostgreSQL answers store_unavailable within the deadline")
    func unreachablePostgres() async throws {
        let configuration = try PostgresStoreConfiguration(
            url: "postgres://nobody@127.0.0.1:1/none?sslmode=disable",
            operationTimeout: .milliseconds(500)
        )
        let store = PostgresRiskStore(configuration: configuration, logger: TestStore.logger)
        let runner = Task { try await store.run() }
        defer { runner.cancel() }
        do {
            try await store.checkHealth()
            Issue.record("a closed port answered")
        } catch let error as StoreError {
            #expect(error.code == .unavailable)
        }
    }

    @Test("an operation waits for the pool to run instead of leasing early (PostgresNIO warned on every start), within its deadline")
    func operationsWaitForThePool() async throws {
        let configuration = try PostgresStoreConfiguration(
            url: "postgres://nobody@127.0.0.1:1/none?sslmode=disable",
            operationTimeout: .milliseconds(300)
        )
        let warnings = RecordingLogHandler.Recording()
        let logger = Logger(label: "test") { _ in RecordingLogHandler(recording: warnings, level: .warning) }
        let store = PostgresRiskStore(configuration: configuration, logger: logger)

        // Never run: the wait counts against the deadline, so the caller still gets an answer (without it, the call
        // would wait forever, since a pool that never runs never fails a lease). The bound only tells an answer from
        // no answer: on two busy cores the answer to a 300 ms deadline has come over a minute late, while CPU-bound
        // tests held both of Swift concurrency's threads.
        let started = ContinuousClock.now
        let error = await #expect(throws: StoreError.self) { try await store.checkHealth() }
        #expect(error?.code == .unavailable)
        #expect(ContinuousClock.now - started < .seconds(600))

        // Asked before the pool runs, answered once it does.
        let early = Task { try await store.checkHealth() }
        try await Task.sleep(for: .milliseconds(50))
        let runner = Task { try await store.run() }
        defer { runner.cancel() }
        do {
            try await early.value
            Issue.record("a closed port answered")
        } catch let error as StoreError {
            #expect(error.code == .unavailable)
        }
        let messages = warnings.events.map(\.message.description)
        #expect(messages.filter { $0.contains("hasn't been called") }.isEmpty, "\(messages)")
    }

    @Test("a store stopped while its probes wait on hosts that never answer stops at once, not at the operation deadline")
    func stopDoesNotWaitForSilentHosts() async throws {
        let primary = try SilentPostgres()
        let replica = try SilentPostgres()
        defer {
            primary.stop()
            replica.stop()
        }
        // The deadline is far beyond the bound below: a stop that waits for it fails the test.
        let timeout = Duration.seconds(300)
        let store = PostgresRiskStore(
            configuration: try PostgresStoreConfiguration(url: primary.url(), operationTimeout: timeout),
            replica: try PostgresStoreConfiguration(url: replica.url(), operationTimeout: timeout),
            logger: TestStore.logger
        )
        let runner = Task { try await store.run() }
        // Both searches have logged in and sent their question, which is never answered.
        let asked = ContinuousClock.now
        while primary.queriedConnections == 0 || replica.queriedConnections == 0 {
            guard ContinuousClock.now - asked < .seconds(120) else {
                runner.cancel()
                Issue.record("the store never asked its hosts (\(primary.queriedConnections), \(replica.queriedConnections))")
                return
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        runner.cancel()
        // Wide: on two busy cores a prompt stop can still take seconds; a stop that waits for a probe's deadline
        // takes five minutes.
        let finished = Mutex(false)
        Task {
            _ = await runner.result
            finished.withLock { $0 = true }
        }
        let cancelled = ContinuousClock.now
        while !finished.withLock({ $0 }), ContinuousClock.now - cancelled < .seconds(90) {
            try await Task.sleep(for: .milliseconds(20))
        }
        let stopped = finished.withLock { $0 }
        #expect(stopped, "the store's run went on past its cancellation, waiting for a host that never answers")
    }
}
