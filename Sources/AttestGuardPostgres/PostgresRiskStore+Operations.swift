import AttestVocabulary
public import Foundation
import PostgresNIO
import Logging
public import AttestGuardStore

extension PostgresRiskStore {
    public func issueChallenge(_ challenge: NewChallenge, quota: ChallengeQuota) async throws -> ChallengeIssueOutcome {
        let windowStart = challenge.issuedAt.addingTimeInterval(-quota.window.timeInterval)
        // One statement: the counts and the insert see the same snapshot. Concurrent requests may overshoot a limit
        // by the number in flight; the limits bound abuse, they are not a security boundary. The per-app count stops
        // at the limit, so it reads at most that many index entries.
        let inserted = try await rows(
            """
            INSERT INTO challenges (id, app_id, purpose, user_id, key_id, api_key_name, client_hash, issued_at, expires_at)
            SELECT \(challenge.id), \(challenge.appId), \(challenge.purpose.rawValue), \(challenge.userId),
                   \(challenge.keyId), \(challenge.apiKeyName), \(challenge.clientHash), \(challenge.issuedAt), \(challenge.expiresAt)
            WHERE CASE WHEN \(challenge.userId)::text IS NOT NULL THEN
                (SELECT count(*) FROM challenges
                 WHERE app_id = \(challenge.appId) AND user_id = \(challenge.userId) AND issued_at > \(windowStart)) < \(quota.maximumPerUser)
            ELSE
                (\(challenge.clientHash)::text IS NULL OR (SELECT count(*) FROM challenges
                 WHERE app_id = \(challenge.appId) AND user_id IS NULL AND client_hash = \(challenge.clientHash)
                   AND issued_at > \(windowStart)) < \(quota.maximumUnboundPerClient))
                AND (SELECT count(*) FROM (SELECT 1 FROM challenges
                 WHERE app_id = \(challenge.appId) AND user_id IS NULL AND expires_at > \(challenge.issuedAt)
                 LIMIT \(quota.maximumUnboundPerApp)) AS unexpired) < \(quota.maximumUnboundPerApp)
            END
            RETURNING id
            """
        )
        if inserted.count == 1 { return .issued }
        return try await quotaRefusal(challenge, quota: quota, windowStart: windowStart)
    }

    /// Which limit refused `challenge`, and when the oldest challenge it counts leaves it.
    private func quotaRefusal(_ challenge: NewChallenge, quota: ChallengeQuota, windowStart: Date) async throws -> ChallengeIssueOutcome {
        func instant(_ query: PostgresQuery) async throws -> Date? {
            try await rows(query).first.flatMap { try PostgresRowReader($0, table: "challenges")("instant", as: Date?.self) }
        }
        let window = quota.window.timeInterval
        if let userId = challenge.userId {
            let oldest = try await instant(
                "SELECT min(issued_at) AS instant FROM challenges WHERE app_id = \(challenge.appId) AND user_id = \(userId) AND issued_at > \(windowStart)"
            )
            return .overQuota(retryAt: (oldest ?? challenge.issuedAt).addingTimeInterval(window), limit: .perUser)
        }
        if let clientHash = challenge.clientHash {
            let counted = try await rows(
                """
                SELECT count(*) AS n, min(issued_at) AS instant FROM challenges
                WHERE app_id = \(challenge.appId) AND user_id IS NULL AND client_hash = \(clientHash) AND issued_at > \(windowStart)
                """
            )
            if let row = counted.first {
                let read = PostgresRowReader(row, table: "challenges")
                if try read("n", as: Int64.self) >= quota.maximumUnboundPerClient {
                    let oldest = try read("instant", as: Date?.self)
                    return .overQuota(retryAt: (oldest ?? challenge.issuedAt).addingTimeInterval(window), limit: .unboundPerClient)
                }
            }
        }
        let firstExpiry = try await instant(
            """
            SELECT min(expires_at) AS instant FROM challenges
            WHERE app_id = \(challenge.appId) AND user_id IS NULL AND expires_at > \(challenge.issuedAt)
            """
        )
        return .overQuota(retryAt: firstExpiry ?? challenge.issuedAt.addingTimeInterval(1), limit: .unboundPerApp)
    }

    public func challenge(id: Data) async throws -> ChallengeRecord? {
        try await rows("SELECT * FROM challenges WHERE id = \(id)").first.map(ChallengeRecord.init(postgres:))
    }

    public func key(appId: String, keyId: Data) async throws -> KeyRecord? {
        try await rows("SELECT * FROM app_keys WHERE app_id = \(appId) AND key_id = \(keyId)").first.map(KeyRecord.init(postgres:))
    }

    public func supersededKeyCount(appId: String, userId: String, deviceId: String) async throws -> Int {
        let row = try await rows(
            "SELECT count(*) FROM app_keys WHERE app_id = \(appId) AND user_id = \(userId) AND device_id = \(deviceId) AND status = 'superseded'"
        )
        return Int(try row.first?.decode(Int64.self) ?? 0)
    }

    public func scoringFacts(_ query: ScoringFactsQuery) async throws -> ScoringFacts {
        let facts = if let factReads {
            try await factReads.submit(query) { queries, oldest in try await self.readFacts(queries, waitingSince: oldest) }
        } else {
            try await readFacts([query], waitingSince: nil)[0].get()
        }
        guard facts.velocity.totals.count == query.velocity.count else {
            throw StoreError(.queryFailed, "scoringFacts returned \(facts.velocity.totals.count) velocity sums for \(query.velocity.count)")
        }
        guard facts.distinct.count == query.distinct.count else {
            throw StoreError(.queryFailed, "scoringFacts returned \(facts.distinct.count) distinct counts for \(query.distinct.count)")
        }
        return facts
    }

    /// Reads the facts of a batch of verdicts in one statement, from one snapshot, answering each in the order
    /// given; when PostgreSQL refuses the statement, each query runs again alone (``answeringEach(_:alone:batch:)``).
    func readFacts(_ queries: [ScoringFactsQuery], waitingSince: ContinuousClock.Instant?) async throws -> [Result<ScoringFacts, any Error>] {
        try await answeringEach(queries, alone: { try await self.readFacts($0, waitingSince: waitingSince) }) { queries in
            var answers = [Result<ScoringFacts, any Error>](repeating: .failure(StoreError(.queryFailed, "scoringFacts returned no row")), count: queries.count)
            let rows = if queries.contains(where: \.asksForDailyFacts) {
                try await execute(ScoringFactsBatchStatement<AllScoringFacts>(queries: queries), waitingSince: waitingSince)
            } else {
                try await execute(ScoringFactsBatchStatement<ExactScoringFacts>(queries: queries), waitingSince: waitingSince)
            }
            for row in rows {
                answers[row.index] = .success(row.facts)
            }
            return answers
        }
    }

    /// Runs `batch` over `entries`; when PostgreSQL refuses the statement itself (a deadlock between batches, one
    /// entry's values), runs each entry alone with `alone`, so that the failure is only its own entry's.
    private func answeringEach<Entry, Answer>(
        _ entries: [Entry],
        alone: ([Entry]) async throws -> [Result<Answer, any Error>],
        batch: ([Entry]) async throws -> [Result<Answer, any Error>]
    ) async throws -> [Result<Answer, any Error>] {
        do {
            return try await batch(entries)
        } catch let error as StoreError where error.code == .queryFailed && entries.count > 1 {
            var answers = [Result<Answer, any Error>]()
            for entry in entries {
                do { answers.append(try await alone([entry])[0]) } catch { answers.append(.failure(error)) }
            }
            return answers
        }
    }

    public func receipt(appId: String, keyId: Data) async throws -> ReceiptRecord? {
        try await rows("SELECT * FROM receipts WHERE app_id = \(appId) AND key_id = \(keyId)").first.map(ReceiptRecord.init(postgres:))
    }

    public func registerKey(_ registration: KeyRegistration) async throws -> KeyRegistrationOutcome {
        let key = registration.key
        if let existing = try await self.key(appId: key.appId, keyId: key.keyId) {
            return RejectionDiagnosis.existingKey(existing, registration: registration)
        }
        let logger = self.logger
        do {
            let superseded = try await transaction { connection in
                try await Self.consume(registration.claim, on: connection, logger: logger)
                let inserted = try await connection.query(
                    """
                    INSERT INTO app_keys (app_id, key_id, user_id, device_id, environment, public_key, counter, status,
                        attestation_sha256, os_version, attested_at, registration_challenge_sha256, registration_challenge_expires_at,
                        validation_category, bundle_version)
                    VALUES (\(key.appId), \(key.keyId), \(key.userId), \(key.deviceId), \(key.environment.rawValue), \(key.publicKey),
                        0, 'active', \(key.attestationSHA256), \(key.osVersion), \(key.attestedAt),
                        \(ChallengeClaim.digest(of: registration.claim.challengeId)),
                        (SELECT expires_at FROM challenges WHERE id = \(registration.claim.challengeId)),
                        \(key.validationCategory.map { Int64($0.number) }), \(key.bundleVersion))
                    ON CONFLICT DO NOTHING RETURNING key_id
                    """,
                    logger: logger
                ).collect()
                guard inserted.count == 1 else { throw RollbackSignal(step: .keyExists) }
                var superseded: [Data] = []
                if let deviceId = key.deviceId {
                    superseded = try await connection.query(
                        """
                        UPDATE app_keys SET status = 'superseded', superseded_by = \(key.keyId), status_changed_at = \(key.attestedAt)
                        WHERE app_id = \(key.appId) AND user_id = \(key.userId) AND device_id = \(deviceId)
                          AND status = 'active' AND key_id <> \(key.keyId)
                        RETURNING key_id
                        """,
                        logger: logger
                    ).collect().map { try PostgresRowReader($0, table: "app_keys")("key_id", as: Data.self) }
                }
                let receipt = registration.receipt
                try await connection.query(
                    """
                    INSERT INTO receipts (app_id, key_id, receipt_type, receipt, created_at, not_before, expires_at, risk_metric, stored_at,
                        next_refresh_at)
                    VALUES (\(receipt.appId), \(receipt.keyId), \(receipt.receiptType.rawValue), \(receipt.receipt), \(receipt.createdAt),
                        \(receipt.notBefore), \(receipt.expiresAt), \(receipt.riskMetric.map { Int32(clamping: $0) }), \(receipt.storedAt),
                        \(receipt.nextRefreshAt))
                    """,
                    logger: logger
                )
                return superseded
            }
            var registered = key
            registered.counter = 0
            registered.status = .active
            return .registered(registered, supersededKeyIds: superseded)
        } catch let signal as RollbackSignal {
            return try await registrationOutcome(rolledBackAt: signal, registration)
        }
    }

    public func commitAssertion(_ commit: AssertionCommit) async throws -> AssertionCommitOutcome {
        // Nothing to read: a query without a key reads no row.
        let (answer, _) = try await committing(AssertionBatchEntry(commit: commit, query: ScoringFactsQuery(appId: commit.claim.appId, keyId: nil)))
        return try await outcome(of: answer, commit)
    }

    public func commitAssertion(_ commit: AssertionCommit, readingFacts query: ScoringFactsQuery) async throws -> (AssertionCommitOutcome, ScoringFacts?) {
        let (answer, facts) = try await committing(AssertionBatchEntry(commit: commit, query: query))
        let outcome = try await outcome(of: answer, commit)
        guard outcome.isCommitted, !query.isEmpty else { return (outcome, nil) }
        guard facts.velocity.totals.count == query.velocity.count else {
            throw StoreError(.queryFailed, "the commit's facts have \(facts.velocity.totals.count) velocity sums for \(query.velocity.count)")
        }
        return (outcome, facts)
    }

    /// Commits `entry` in the next batch of this process's accepted assertions (``GroupCommit``), or alone when
    /// batching is off (`batchSize` 1).
    private func committing(_ entry: AssertionBatchEntry) async throws -> (AssertionBatchAnswer, ScoringFacts) {
        guard let assertionCommits else { return try await commitBatch([entry], waitingSince: nil)[0].get() }
        return try await assertionCommits.submit(entry) { entries, oldest in try await self.commitBatch(entries, waitingSince: oldest) }
    }

    /// Commits a batch of assertions and answers each in the order given: in one statement
    /// (``CommitAssertionsStatement``), or in one statement per round when the batch repeats a key or a challenge.
    ///
    /// The statement runs the entries by key, then counter: concurrent batches that share keys take their locks in
    /// one order. It commits its entries side by side, so each of its entries names a key and a challenge the others
    /// do not: a key's later assertions in one batch (rising counters of a device that sent several at once) wait for
    /// the next round, whose statement sees the earlier ones committed, and all commit; a challenge sent twice goes to
    /// the next round too, where it is found consumed. When PostgreSQL refuses a round's statement, for a deadlock or
    /// one entry's values, that round's entries run again one by one (``answeringEach(_:alone:batch:)``). A round that
    /// fails otherwise fails its entries and the later rounds'; the earlier rounds committed, and their answers stand.
    func commitBatch(
        _ entries: [AssertionBatchEntry],
        waitingSince: ContinuousClock.Instant?
    ) async throws -> [Result<(AssertionBatchAnswer, ScoringFacts), any Error>] {
        typealias Answer = Result<(AssertionBatchAnswer, ScoringFacts), any Error>
        let order = entries.indices.sorted { left, right in
            AssertionCommit.precedesInBatch(entries[left].commit, entries[right].commit, arrival: left, right)
        }
        let rounds = Self.rounds(of: order, naming: entries.map { ($0.commit.claim.keyId, $0.commit.claim.challengeId) })
        let unanswered = StoreError(.queryFailed, "the assertions' commit returned no row for an entry")
        var answers = [Answer](repeating: .failure(unanswered), count: entries.count)
        for (number, round) in rounds.enumerated() {
            let roundAnswers: [Answer]
            do {
                roundAnswers = try await answeringEach(round.map { entries[$0] }, alone: { try await self.commitBatch($0, waitingSince: waitingSince) }) { roundEntries in
                    var answers = [Answer](repeating: .failure(unanswered), count: roundEntries.count)
                    let rows = if roundEntries.contains(where: \.query.asksForDailyFacts) {
                        try await execute(CommitAssertionsStatement<AllScoringFacts>(entries: roundEntries), waitingSince: waitingSince)
                    } else {
                        try await execute(CommitAssertionsStatement<ExactScoringFacts>(entries: roundEntries), waitingSince: waitingSince)
                    }
                    for row in rows {
                        answers[row.index] = .success((row.answer, row.facts))
                    }
                    return answers
                }
            } catch let error where number > 0 {
                for index in rounds[number...].joined() { answers[index] = .failure(error) }
                return answers
            }
            for (position, index) in round.enumerated() { answers[index] = roundAnswers[position] }
        }
        return answers
    }

    /// `order` split into rounds, in order, each naming every key and every challenge at most once: an entry goes to
    /// the first round that names neither its key nor its challenge yet.
    static func rounds(of order: [Int], naming subjects: [(key: Data, challenge: Data)]) -> [[Int]] {
        var rounds: [[Int]] = []
        var keys: [Set<Data>] = [], challenges: [Set<Data>] = []
        for index in order {
            let (key, challenge) = subjects[index]
            if let round = rounds.indices.first(where: { !keys[$0].contains(key) && !challenges[$0].contains(challenge) }) {
                rounds[round].append(index)
                keys[round].insert(key)
                challenges[round].insert(challenge)
            } else {
                rounds.append([index])
                keys.append([key])
                challenges.append([challenge])
            }
        }
        return rounds
    }

    /// What the assertions' commit answered, as an outcome: the diagnosed rejection of the step that failed, or the
    /// commit with the key's previous counter.
    private func outcome(of answer: AssertionBatchAnswer, _ commit: AssertionCommit) async throws -> AssertionCommitOutcome {
        if let step = answer.failedStep {
            return try await assertionOutcome(rolledBackAt: RollbackSignal(step: step), commit)
        }
        guard let previous = answer.previousCounter else {
            throw StoreError(.queryFailed, "the assertions' commit committed without the previous counter")
        }
        return .committed(previousCounter: previous)
    }

    public func revokeKey(appId: String, keyId: Data, at: Date) async throws -> KeyRecord? {
        _ = try await rows(
            """
            UPDATE app_keys SET status = 'revoked', status_changed_at = \(at)
            WHERE app_id = \(appId) AND key_id = \(keyId) AND status <> 'revoked'
            RETURNING key_id
            """
        )
        return try await key(appId: appId, keyId: keyId)
    }

    public func purgeChallenges(expiredBefore cutoff: Date) async throws -> Int {
        try await rows("DELETE FROM challenges WHERE expires_at < \(cutoff) RETURNING id").count
    }

    public func checkHealth() async throws {
        _ = try await rows("SELECT 1")
    }

    /// The conditional consumption of an attestation's challenge: exactly one row or a rollback. (An assertion's
    /// challenge is consumed by ``CommitAssertionsStatement``, with its counter and request.)
    private static func consume(_ claim: ChallengeClaim, on connection: PostgresConnection, logger: Logger) async throws {
        let consumed = try await connection.query(
            """
            UPDATE challenges
            SET consumed_at = \(claim.at), consumed_key_id = \(claim.keyId), consumed_counter = NULL, consumed_request = NULL
            WHERE id = \(claim.challengeId) AND app_id = \(claim.appId) AND purpose = \(claim.purpose.rawValue)
              AND consumed_at IS NULL AND expires_at > \(claim.expiryThreshold)
              AND (user_id IS NULL OR user_id = \(claim.userId)) AND (key_id IS NULL OR key_id = \(claim.keyId))
            RETURNING id
            """,
            logger: logger
        ).collect()
        guard consumed.count == 1 else { throw RollbackSignal(step: .challenge) }
    }
}
