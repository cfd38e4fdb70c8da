import AttestVocabulary
import AttestTestSupport
import Foundation
import Logging
import PostgresNIO
import AttestGuardStore
@testable import AttestGuardPostgres
import Testing

/// One statement commits a batch of assertions (group commit): each keeps its own outcome, the facts are each
/// entry's own, and a statement PostgreSQL refuses fails only the entry that caused it.
@Suite("Assertion batches in PostgreSQL")
struct AssertionBatchStoreTests {
    /// The PostgreSQL backends (a pooler in transaction mode runs the statement unnamed).
    static var backends: [StoreBackend] { StoreBackend.available.filter { $0 != .sqlite } }

    private func entry(_ key: KeyRecord, counter: Int64, challenge: NewChallenge, request: String? = #"{"method":"POST"}"#) -> AssertionBatchEntry {
        AssertionBatchEntry(
            commit: AssertionCommit(claim: StoreFixtures.claim(challenge, key: key), counter: counter, requestContext: request),
            query: ScoringFactsQuery(appId: key.appId, keyId: key.keyId, receipt: true)
        )
    }


    @Test("a batch mixing accepted, replayed and stale assertions on several keys answers each in its order", arguments: backends)
    func mixedBatch(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let store = try #require(test.store as? PostgresRiskStore)
            let batch = try await MixedAssertionBatch(in: store)
            let (keys, second, stale) = (batch.keys, batch.second, batch.stale)
            // Given out of key order, with key 2's higher counter first: the statement sorts them, the answers don't.
            let entries = batch.commits.map { AssertionBatchEntry(commit: $0, query: ScoringFactsQuery(appId: $0.claim.appId, keyId: $0.claim.keyId, receipt: true)) }
            let answers = try await store.commitBatch(entries, waitingSince: nil).map { try $0.get() }
            #expect(answers.count == 5)
            // Key 2's counters 4 and 5 both commit, in counter order; the replay of `first` finds it used.
            #expect(answers[2].0.failedStep == nil && answers[2].0.previousCounter == 0)
            #expect(answers[0].0.failedStep == nil && answers[0].0.previousCounter == 4)
            #expect(answers[3].0.failedStep == .challenge)
            #expect(answers[1].0.failedStep == .counter)
            #expect(answers[4].0.failedStep == nil && answers[4].0.previousCounter == 0)
            // Each entry's facts are its own key's, as they were before its statement: key 2's second assertion went to
            // a second statement, which read them after the first committed counter 4.
            #expect(answers.map { $0.1.key?.keyId } == [keys[2].keyId, keys[1].keyId, keys[2].keyId, keys[2].keyId, keys[0].keyId])
            #expect(answers[1].1.key?.counter == 7 && answers[2].1.key?.counter == 0 && answers[0].1.key?.counter == 4)
            #expect(answers.allSatisfy { $0.1.receipt?.receiptType == .attest })
            #expect(try await store.key(appId: keys[2].appId, keyId: keys[2].keyId)?.counter == 5)
            #expect(try await store.challenge(id: stale.id)?.consumedAt == nil)
            #expect(try await store.challenge(id: second.id)?.consumedCounter == 5)
        }
    }

    @Test("a batch splits into statements that each name a key and a challenge once, in the batch's order")
    func rounds() {
        let (a, b, c) = (Data([1]), Data([2]), Data([3]))
        // Entries 0-2 of key a (rising counters), 3 of key b with entry 0's challenge, 4 of key c.
        let subjects = [(key: a, challenge: a), (key: a, challenge: b), (key: a, challenge: c), (key: b, challenge: a), (key: c, challenge: c)]
        #expect(PostgresRiskStore.rounds(of: [0, 1, 2, 3, 4], naming: subjects) == [[0, 4], [1, 3], [2]])
        #expect(PostgresRiskStore.rounds(of: [4, 3], naming: subjects) == [[4, 3]])
        #expect(PostgresRiskStore.rounds(of: [], naming: subjects).isEmpty)
    }

    @Test("a batch asking no daily fact commits with a statement that reads none; a mixed one reads each entry's as asked", arguments: backends)
    func factsShapes(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let store = try #require(test.store as? PostgresRiskStore)
            var keys: [KeyRecord] = []
            for index in 0..<4 { keys.append(try await StoreFixtures.register(StoreFixtures.key(deviceId: "shape-\(index)"), in: store)) }
            func exact(_ key: KeyRecord) async throws -> AssertionBatchEntry {
                var entry = entry(key, counter: 1, challenge: try await StoreFixtures.issueChallenge(for: key, in: store))
                entry.query.receipt = false
                entry.query.labelSubjects = [LabelLookup(kind: .key, subject: key.keyId.base64EncodedString())]
                return entry
            }
            let exactOnly = [try await exact(keys[0]), try await exact(keys[1])]
            #expect(!exactOnly.contains { $0.query.asksForDailyFacts })
            let answers = try await store.commitBatch(exactOnly, waitingSince: nil).map { try $0.get() }
            #expect(answers.map { $0.0.previousCounter } == [0, 0] && answers.allSatisfy { $0.0.failedStep == nil })
            #expect(answers.map { $0.1.key?.keyId } == [keys[0].keyId, keys[1].keyId])
            #expect(answers.allSatisfy { $0.1.receipt == nil && $0.1.labels.isEmpty })

            let mixed = [try await exact(keys[2]), entry(keys[3], counter: 1, challenge: try await StoreFixtures.issueChallenge(for: keys[3], in: store))]
            let mixedAnswers = try await store.commitBatch(mixed, waitingSince: nil).map { try $0.get() }
            #expect(mixedAnswers.allSatisfy { $0.0.failedStep == nil && $0.0.previousCounter == 0 })
            #expect(mixedAnswers[0].1.key?.keyId == keys[2].keyId && mixedAnswers[0].1.receipt == nil, "not asked: none, beside one that asks")
            #expect(mixedAnswers[1].1.key?.keyId == keys[3].keyId && mixedAnswers[1].1.receipt?.receiptType == .attest)
        }
    }

    @Test("the statement for a batch asking no daily fact reads none of their tables; any daily fact asks for the full one")
    func exactShapeText() {
        for table in ["receipts", "risk_metric_history", "devicecheck_bits", "devicecheck_validations"] {
            #expect(CommitAssertionsStatement<AllScoringFacts>.sql.contains(table) && ScoringFactsBatchStatement<AllScoringFacts>.sql.contains(table))
            #expect(!CommitAssertionsStatement<ExactScoringFacts>.sql.contains(table), "\(table)")
            #expect(!ScoringFactsBatchStatement<ExactScoringFacts>.sql.contains(table), "\(table)")
            #expect(!CommitAssertionsStatement<ExactScoringFacts>.unnamedSQL.contains(table), "\(table)")
        }
        for part in ["app_keys", "velocity_buckets", "distinct_sightings", "labels", "velocity_flushes"] {
            #expect(CommitAssertionsStatement<ExactScoringFacts>.sql.contains(part) && ScoringFactsBatchStatement<ExactScoringFacts>.sql.contains(part))
        }
        let names: [String] = [
            CommitAssertionsStatement<AllScoringFacts>.name, CommitAssertionsStatement<ExactScoringFacts>.name,
            ScoringFactsBatchStatement<AllScoringFacts>.name, ScoringFactsBatchStatement<ExactScoringFacts>.name,
        ]
        #expect(Set(names).count == 4)

        let base = ScoringFactsQuery(appId: StoreFixtures.appId, keyId: Data([1]), velocity: [VelocitySum(subject: "key-1", event: "assertions", since: 0)])
        #expect(!base.asksForDailyFacts)
        var asking: [ScoringFactsQuery] = Array(repeating: base, count: 5)
        asking[0].receipt = true
        asking[1].metricBaselineAt = StoreFixtures.now
        asking[2].supersededKeys = true
        asking[3].deviceCheck = DeviceCheckQuery(scopes: [.app(StoreFixtures.appId)], defaultEnvironment: .production, subjects: [])
        asking[4].deviceCheckValidationUserId = "user-1"
        #expect(asking.allSatisfy { $0.asksForDailyFacts })
    }

    @Test("both batch statements keep the plan PostgreSQL makes once, whatever the batch's size", arguments: StoreBackend.postgresOnly)
    func batchStatementsKeepTheirPlan(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let store = try #require(test.store as? PostgresRiskStore)
            let key = try await StoreFixtures.register(StoreFixtures.key(deviceId: "plan"), in: store)
            // Every list asked for, so that each parameter carries elements in some executions.
            var query = ScoringFactsQuery(appId: key.appId, keyId: key.keyId, velocityWriter: "w")
            query.velocity = [VelocitySum(subject: "s1", event: "assertions", since: 0), VelocitySum(subject: "s2", event: "assertions", since: 0)]
            query.distinct = [DistinctCountRead(series: Array("d1".utf8), since: 0, excluding: [Array("m1".utf8)])]
            query.labelSubjects = [LabelLookup(kind: .user, subject: "u1")]
            #expect(!query.asksForDailyFacts)
            // Challenges never issued: each entry is refused at its first step, so the executions change nothing.
            func entries(_ count: Int) -> [AssertionBatchEntry] {
                (0..<count).map { _ in
                    AssertionBatchEntry(
                        commit: AssertionCommit(claim: StoreFixtures.claim(StoreFixtures.challenge(keyId: key.keyId), key: key), counter: 1, requestContext: nil),
                        query: query
                    )
                }
            }
            let logger = Logger(label: "test")
            // (generic, custom) executions of the named statement `name` on `connection`.
            func plans(_ name: String, on connection: PostgresConnection) async throws -> (Int64, Int64)? {
                let rows = try await connection.query("SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE name = \(name)", logger: logger)
                return try await rows.collect().first.map { try $0.decode((Int64, Int64).self) }
            }
            // PostgreSQL plans a prepared statement for the values at hand five times, then keeps a plan made once
            // unless those plans cost less: with the arrays' lengths hidden from the planner they do not.
            let sizes = [1, 2, 5, 1, 3, 8, 2, 1, 4, 6]
            let (commitPlans, factsPlans) = try await store.client().withConnection { connection in
                for size in sizes {
                    let answers = try await connection.execute(CommitAssertionsStatement<ExactScoringFacts>(entries: entries(size)), logger: logger)
                        .reduce(into: [CommitAssertionsStatement<ExactScoringFacts>.Row]()) { $0.append($1) }
                    #expect(answers.count == size && answers.allSatisfy { $0.answer.failedStep == .challenge })
                    let facts = try await connection.execute(ScoringFactsBatchStatement<ExactScoringFacts>(queries: Array(repeating: query, count: size)), logger: logger)
                        .reduce(into: [ScoringFactsBatchStatement<ExactScoringFacts>.Row]()) { $0.append($1) }
                    #expect(facts.count == size)
                }
                return (
                    try await plans(CommitAssertionsStatement<ExactScoringFacts>.name, on: connection),
                    try await plans(ScoringFactsBatchStatement<ExactScoringFacts>.name, on: connection)
                )
            }
            #expect(commitPlans?.0 == Int64(sizes.count - 5) && commitPlans?.1 == 5, "\(String(describing: commitPlans))")
            #expect(factsPlans?.0 == Int64(sizes.count - 5) && factsPlans?.1 == 5, "\(String(describing: factsPlans))")
        }
    }

    @Test("a migration that changes a column a prepared batch returns costs no request: stale connections are replaced", arguments: StoreBackend.postgresOnly)
    func staleConnectionsAreReplaced(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let store = try #require(test.store as? PostgresRiskStore)
            let key = try await StoreFixtures.register(StoreFixtures.key(deviceId: "stale"), in: store)
            // Challenges never issued: each entry is refused at its first step, so the batches change nothing.
            func batch() -> [AssertionBatchEntry] {
                [AssertionBatchEntry(
                    commit: AssertionCommit(claim: StoreFixtures.claim(StoreFixtures.challenge(keyId: key.keyId), key: key), counter: 1, requestContext: nil),
                    query: ScoringFactsQuery(appId: key.appId, keyId: key.keyId)
                )]
            }
            func commitConcurrently(_ count: Int) async throws {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for _ in 0..<count {
                        group.addTask {
                            let answers = try await store.commitBatch(batch(), waitingSince: nil)
                            #expect(try answers.map { try $0.get().0.failedStep } == [.challenge])
                        }
                    }
                    try await group.waitForAll()
                }
            }
            // The statement prepared on many of the pool's connections.
            try await commitConcurrently(16)
            let logger = Logger(label: "test")
            // The batch returns the key's counter: the column's new type changes the statement's result type, which
            // PostgreSQL refuses on a connection that prepared it before (as migration 38 did).
            try await store.client().withConnection { connection in
                let statement = CommitAssertionsStatement<ExactScoringFacts>(entries: batch())
                _ = try await connection.execute(statement, logger: logger).reduce(0) { count, _ in count + 1 }
                try await connection.query("CREATE DOMAIN stale_plan_probe AS bigint", logger: logger)
                try await connection.query("ALTER TABLE app_keys ALTER COLUMN counter TYPE stale_plan_probe", logger: logger)
                do {
                    _ = try await connection.execute(statement, logger: logger).reduce(0) { count, _ in count + 1 }
                    Issue.record("a connection that prepared the batch before the change ran it after")
                } catch let error as PSQLError {
                    #expect(StalePreparedPlan(error) != nil, "\(String(reflecting: error))")
                }
                // This connection goes back to the pool as it is: the store meets it below.
            }
            try await commitConcurrently(16)
            for _ in 0..<20 { try await commitConcurrently(1) }
        }
    }

    @Test("an entry PostgreSQL refuses fails alone: the rest of its batch commits", arguments: backends)
    func refusedStatementFailsOneEntry(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let store = try #require(test.store as? PostgresRiskStore)
            var entries: [AssertionBatchEntry] = []
            for index in 0..<3 {
                let key = try await StoreFixtures.register(StoreFixtures.key(deviceId: "refused-\(index)"), in: store)
                // The middle entry's request is not JSON: its cast fails the whole statement.
                entries.append(entry(key, counter: 1, challenge: try await StoreFixtures.issueChallenge(for: key, in: store), request: index == 1 ? "{not json" : "{}"))
            }
            let answers = try await store.commitBatch(entries, waitingSince: nil)
            #expect(try answers[0].get().0.failedStep == nil)
            #expect(try answers[2].get().0.failedStep == nil)
            #expect(throws: StoreError.self) { try answers[1].get() }
            #expect(try await store.challenge(id: entries[1].commit.claim.challengeId)?.consumedAt == nil)
        }
    }

    @Test("a later round PostgreSQL refuses runs again alone; the earlier round's commit stands", arguments: backends)
    func refusedLaterRound(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let store = try #require(test.store as? PostgresRiskStore)
            let key = try await StoreFixtures.register(StoreFixtures.key(deviceId: "refused-round"), in: store)
            // Two assertions of one key: counter 2 goes to a second round, whose request is not JSON.
            let first = entry(key, counter: 1, challenge: try await StoreFixtures.issueChallenge(for: key, in: store))
            let second = entry(key, counter: 2, challenge: try await StoreFixtures.issueChallenge(for: key, in: store), request: "{not json")
            let answers = try await store.commitBatch([second, first], waitingSince: nil)
            let committed = try answers[1].get().0
            #expect(committed.failedStep == nil && committed.previousCounter == 0, "the first round's commit, answered as committed")
            #expect(throws: StoreError.self) { try answers[0].get() }
            #expect(try await store.key(appId: key.appId, keyId: key.keyId)?.counter == 1)
            #expect(try await store.challenge(id: second.commit.claim.challengeId)?.consumedAt == nil)
        }
    }

    @Test("a batch whose oldest request waited out the store's deadline fails at once and changes nothing", arguments: backends)
    func batchPastItsDeadline(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let store = try #require(test.store as? PostgresRiskStore)
            let key = try await StoreFixtures.register(StoreFixtures.key(deviceId: "late"), in: store)
            let late = entry(key, counter: 1, challenge: try await StoreFixtures.issueChallenge(for: key, in: store))
            let waitedOut = ContinuousClock.now - store.configuration.operationTimeout - .seconds(1)
            let timedOutBefore = store.deadlineCounts.timedOut
            let error = await #expect(throws: StoreError.self) { try await store.commitBatch([late], waitingSince: waitedOut) }
            #expect(error?.code == .unavailable)
            #expect(store.deadlineCounts.timedOut == timedOutBefore + 1)
            #expect(try await store.challenge(id: late.commit.claim.challengeId)?.consumedAt == nil)
            // With time left, the same entry commits.
            #expect(try await store.commitBatch([late], waitingSince: ContinuousClock.now)[0].get().0.failedStep == nil)
        }
    }

    @Test("64 assertions of 64 keys at once: all commit, each with its own key's facts, all counted in the batches", arguments: backends)
    func concurrentAssertionsBatch(backend: StoreBackend) async throws {
        try await withTestStore(backend, poolSize: 16) { (test: TestStore) async throws in
            let store = try #require(test.store as? PostgresRiskStore)
            var prepared: [(KeyRecord, AssertionCommit)] = []
            for index in 0..<64 {
                let key = try await StoreFixtures.register(StoreFixtures.key(deviceId: "many-\(index)"), in: store)
                let challenge = try await StoreFixtures.issueChallenge(for: key, in: store)
                prepared.append((key, AssertionCommit(claim: StoreFixtures.claim(challenge, key: key), counter: 3, requestContext: nil)))
            }
            let before = store.assertionBatchCounts
            let all = prepared
            let keysRead = try await withThrowingTaskGroup(of: (Data, Data?).self) { group in
                for (key, commit) in all {
                    group.addTask {
                        let (outcome, facts) = try await store.commitAssertion(commit, readingFacts: ScoringFactsQuery(appId: key.appId, keyId: key.keyId))
                        #expect(outcome == .committed(previousCounter: 0))
                        return (key.keyId, facts?.key?.keyId)
                    }
                }
                return try await group.reduce(into: [(Data, Data?)]()) { $0.append($1) }
            }
            #expect(keysRead.count == 64 && keysRead.allSatisfy { $0.0 == $0.1 })
            let after = store.assertionBatchCounts
            #expect(after.entries - before.entries == 64)
            #expect((1...64).contains(after.batches - before.batches))
        }
    }

    @Test("each entry of a batch reads its own run of every list, empty runs before, between and after included", arguments: backends)
    func listRuns(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let store = try #require(test.store as? PostgresRiskStore)
            var keys: [KeyRecord] = []
            for index in 0..<6 { keys.append(try await StoreFixtures.register(StoreFixtures.key(deviceId: "runs-\(index)"), in: store)) }
            let appId = keys[0].appId
            let increment = { (subject: String, count: Int64) in
                VelocityIncrement(key: .init(appId: appId, subject: subject, event: "assertions", granularity: 60, bucket: 600), count: count)
            }
            try await store.addVelocity((1...5).map { increment("s\($0)", Int64($0)) }, flush: VelocityFlush(writer: "w", sequence: 2, at: StoreFixtures.now))
            try await store.addDistinctSightings((1...4).flatMap { series in
                (1...series).map { DistinctSighting(series: Array("d\(series)".utf8), member: Array("m\($0)".utf8), lastSeen: 60) }
            })
            func label(_ subject: String, _ value: FraudLabel) -> FraudLabelRecord {
                FraudLabelRecord(appId: appId, kind: .user, subject: subject, source: "support", label: value, labelledAt: StoreFixtures.now)
            }
            _ = try await store.storeLabels([label("u1", .fraud), label("u2", .legitimate), label("u3", .fraud)])
            let bits = { (value: String, bit0: Bool) in
                DeviceCheckRecord(
                    scope: .app(appId), environment: .development, subject: DeviceCheckSubject(kind: .device, value: value), bit0: bit0,
                    bit1: false, found: true, lastUpdateTime: "2026-10", observedAt: StoreFixtures.now
                )
            }
            try await store.storeDeviceCheckBits(bits("dc1", true))
            try await store.storeDeviceCheckBits(bits("dc2", false))

            func query(_ index: Int, velocity: [Int] = [], distinct: [(Int, [Int])] = [], labels: [Int] = [], devices: [Int] = []) -> ScoringFactsQuery {
                var query = ScoringFactsQuery(appId: appId, keyId: keys[index].keyId, velocityWriter: velocity.isEmpty ? nil : "w")
                query.velocity = velocity.map { VelocitySum(subject: "s\($0)", event: "assertions", since: 0) }
                query.distinct = distinct.map { series, excluded in
                    DistinctCountRead(series: Array("d\(series)".utf8), since: 0, excluding: excluded.map { Array("m\($0)".utf8) })
                }
                query.labelSubjects = labels.map { LabelLookup(kind: .user, subject: "u\($0)") }
                if !devices.isEmpty {
                    query.deviceCheck = DeviceCheckQuery(
                        scopes: [.app(appId)], defaultEnvironment: .production, subjects: devices.map { DeviceCheckSubject(kind: .device, value: "dc\($0)") }
                    )
                }
                return query
            }
            // Lists of different lengths, each list empty for some entries: the first, the last and ones between.
            let queries = [
                query(0),
                query(1, velocity: [1, 2], distinct: [(2, [1])], labels: [1]),
                query(2, velocity: [3], labels: [2, 3], devices: [2, 1]),
                query(3),
                query(4, velocity: [4, 5, 1], distinct: [(3, []), (4, [1, 2, 4])], devices: [1]),
                query(5, distinct: [(1, [])], labels: [3]),
            ]
            let read = try await store.readFacts(queries, waitingSince: nil).map { try $0.get() }
            #expect(read.map(\.velocity.totals) == [[], [1, 2], [3], [], [4, 5, 1], []])
            #expect(read.map(\.distinct) == [[], [1], [], [], [3, 1], [1]])
            #expect(read.map { $0.labels.map(\.subject) } == [[], ["u1"], ["u2", "u3"], [], [], ["u3"]])
            #expect(read.map { $0.deviceCheck?.subject.value } == [nil, nil, "dc2", nil, "dc1", nil])
            for (query, facts) in zip(queries, read) {
                #expect(facts == (try await store.scoringFactsFromSingleReads(query)), "\(query)")
            }
            // Without DeviceCheck the batch reads with the statement that leaves the daily facts out.
            let exactQueries = queries.map { query in
                var exact = query
                exact.deviceCheck = nil
                return exact
            }
            let exactRead = try await store.readFacts(exactQueries, waitingSince: nil).map { try $0.get() }
            #expect(exactRead.map(\.velocity) == read.map(\.velocity) && exactRead.map(\.distinct) == read.map(\.distinct))
            #expect(exactRead.map(\.labels) == read.map(\.labels) && exactRead.allSatisfy { $0.deviceCheck == nil })

            // The same lists beside a batch of commits.
            var entries: [AssertionBatchEntry] = []
            for (index, query) in queries.enumerated() {
                var batchEntry = entry(keys[index], counter: 1, challenge: try await StoreFixtures.issueChallenge(for: keys[index], in: store))
                batchEntry.query = query
                entries.append(batchEntry)
            }
            let committed = try await store.commitBatch(entries, waitingSince: nil).map { try $0.get() }
            #expect(committed.allSatisfy { $0.0.failedStep == nil })
            for (facts, (_, committedFacts)) in zip(read, committed) {
                var before = committedFacts
                before.key = facts.key
                #expect(before == facts)
            }
        }
    }

    @Test("one statement reads the facts of several verdicts, each its own, unknown keys included", arguments: backends)
    func readBatch(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let store = try #require(test.store as? PostgresRiskStore)
            let first = try await StoreFixtures.register(StoreFixtures.key(deviceId: "read-1"), in: store)
            let second = try await StoreFixtures.register(StoreFixtures.key(deviceId: "read-2"), in: store)
            #expect(try await StoreFixtures.assert(second, counter: 3, in: store).isCommitted)
            let queries = [
                ScoringFactsQuery(appId: second.appId, keyId: second.keyId, receipt: true),
                ScoringFactsQuery(appId: first.appId, keyId: StoreFixtures.randomId()),
                ScoringFactsQuery(appId: first.appId, keyId: first.keyId, supersededKeys: true),
                ScoringFactsQuery(appId: first.appId, keyId: nil),
            ]
            let answers = try await store.readFacts(queries, waitingSince: nil).map { try $0.get() }
            #expect(answers.map { $0.key?.keyId } == [second.keyId, nil, first.keyId, nil])
            #expect(answers[0].key?.counter == 3 && answers[0].receipt?.receiptType == .attest && answers[2].receipt == nil)
            #expect(answers[2].supersededKeys == 0 && answers[0].supersededKeys == nil)
            // Each answer is what the single read answers.
            for (query, answer) in zip(queries, answers) {
                #expect(try await store.readFacts([query], waitingSince: nil)[0].get() == answer)
            }
        }
    }
}
