import AttestVocabulary
import Foundation
import SQLiteNIO
public import AttestGuardStore

/// What one assertion's part of a batch transaction did: committed, with its key's row as the commit left it, or
/// changed nothing (the caller then reads why).
enum ClaimedAssertion: Sendable {
    case committed(previousCounter: Int64, key: KeyRecord)
    case refused
}

/// Accepted assertions on the embedded store, committed in groups (``GroupCommit``): the assertions that arrive while
/// a transaction runs share the next one. Every statement here runs on the store's one connection and costs a hop to
/// SQLiteNIO's thread pool and back, which is most of an assertion's time on this store, so a batch shares its
/// `BEGIN IMMEDIATE` and `COMMIT`, and its assertions are claimed together and advanced together: two statements a
/// round of assertions that touch no key or challenge another touches (``rounds(of:naming:)``).
extension SQLiteRiskStore {
    public func commitAssertion(_ commit: AssertionCommit) async throws -> AssertionCommitOutcome {
        try await committing(commit).outcome
    }

    /// The commit, then the verdict's facts, the key's row among them taken from the commit.
    public func commitAssertion(_ commit: AssertionCommit, readingFacts query: ScoringFactsQuery) async throws -> (AssertionCommitOutcome, ScoringFacts?) {
        let (outcome, key) = try await committing(commit)
        guard outcome.isCommitted, !query.isEmpty else { return (outcome, nil) }
        // A failure to read the facts after the commit is no failure of the commit: the facts are then nil.
        return (outcome, try? await scoringFacts(query, knownKey: key))
    }

    private func committing(_ commit: AssertionCommit) async throws -> (outcome: AssertionCommitOutcome, key: KeyRecord?) {
        switch try await assertionCommits.submit(commit, run: { commits, _ in try await self.commitBatch(commits) }) {
        case .committed(let previousCounter, let key):
            return (.committed(previousCounter: previousCounter), key)
        case .refused:
            return (try await assertionOutcome(rolledBackAt: RollbackSignal(step: .challenge), commit), nil)
        }
    }

    /// Commits a batch of assertions in one transaction and answers each in the order given. The assertions run by
    /// key id, then counter, as PostgreSQL's batches do: rising counters of one key sent at once all commit, and a
    /// challenge sent twice is found used by the second. A refused assertion changes nothing (its claim checks both of
    /// its conditions before it writes) and the others commit. A transaction that fails (the disk, say) fails its
    /// assertions; when it held several, each runs again alone, so that only the cause fails.
    func commitBatch(_ commits: [AssertionCommit]) async throws -> [Result<ClaimedAssertion, any Error>] {
        let order = commits.indices.sorted { left, right in
            AssertionCommit.precedesInBatch(commits[left], commits[right], arrival: left, right)
        }
        let rounds = Self.rounds(of: order, naming: commits.map { ($0.claim.keyId, $0.claim.challengeId) })
        do {
            return try await transaction { connection in
                var answers = [Result<ClaimedAssertion, any Error>](repeating: .success(.refused), count: commits.count)
                for round in rounds {
                    let claimed = try await Self.claim(round.map { commits[$0] }, on: connection)
                    for (position, index) in round.enumerated() { answers[index] = .success(claimed[position]) }
                }
                return answers
            }
        } catch where commits.count > 1 {
            var answers = [Result<ClaimedAssertion, any Error>](repeating: .success(.refused), count: commits.count)
            for index in order {
                do {
                    answers[index] = .success(try await transaction { connection in try await Self.claim([commits[index]], on: connection)[0] })
                } catch {
                    answers[index] = .failure(error)
                }
            }
            return answers
        }
    }

    /// `order` split into rounds that run one after another, each naming every key and every challenge at most once: an
    /// assertion goes to the round after the last one that names its key or its challenge. Assertions of different keys
    /// and challenges touch different rows, so a round's assertions run side by side as they would one after another,
    /// and two that share a key or a challenge keep their order: the rounds answer as the assertions one at a time
    /// would.
    static func rounds(of order: [Int], naming subjects: [(key: Data, challenge: Data)]) -> [[Int]] {
        var rounds: [[Int]] = []
        var lastRound: [Data: Int] = [:]
        for index in order {
            let (key, challenge) = subjects[index]
            // Keys and challenges are told apart by a prefix, so that a key id equal to a challenge id is no conflict.
            let keyName = Data([0]) + key, challengeName = Data([1]) + challenge
            let round = max(lastRound[keyName].map { $0 + 1 } ?? 0, lastRound[challengeName].map { $0 + 1 } ?? 0)
            if round == rounds.count { rounds.append([]) }
            rounds[round].append(index)
            lastRound[keyName] = round
            lastRound[challengeName] = round
        }
        return rounds
    }

    /// One round's assertions (no two share a key or a challenge) inside the batch's transaction, which holds SQLite's
    /// write lock, in two statements. The claim consumes a challenge only if its key can advance to the assertion's
    /// counter, so the advance that follows cannot fail and a refused assertion writes nothing; it returns each
    /// consumed challenge with the counter its key had. The advance returns the keys' rows. Answers in `commits`'
    /// order.
    private static func claim(_ commits: [AssertionCommit], on connection: SQLiteConnection) async throws -> [ClaimedAssertion] {
        var previousCounters: [Data: Int64] = [:]
        for row in try await claimStatements(commits).run(on: connection) {
            guard let challenge = row.column("challenge")?.blob.map({ Data($0.readableBytesView) }),
                  let previous = row.column("key_counter")?.integer
            else { throw StoreError(.queryFailed, "a claimed challenge came back without its id or its key's counter") }
            previousCounters[challenge] = Int64(previous)
        }
        let claimed = commits.filter { previousCounters[$0.claim.challengeId] != nil }
        guard !claimed.isEmpty else { return commits.map { _ in .refused } }
        var keys: [Data: KeyRecord] = [:]
        for row in try await advanceStatements(claimed).run(on: connection) {
            let key = try KeyRecord(sqlite: row)
            keys[key.keyId] = key
        }
        // The claim checked the same conditions under the same write lock: a key that does not advance now is a bug,
        // and the transaction rolls back rather than keep a consumed challenge without its counter.
        return try commits.map { commit in
            guard let previous = previousCounters[commit.claim.challengeId] else { return .refused }
            guard let key = keys[commit.claim.keyId], key.appId == commit.claim.appId else {
                throw StoreError(.queryFailed, "the key did not advance after its claim")
            }
            return .committed(previousCounter: previous, key: key)
        }
    }

    /// The round's claims (no two name one challenge: an `UPDATE ... FROM` applies one matching row of its
    /// choosing), returning each consumed challenge's id and its key's counter before the advance.
    static func claimStatements(_ commits: [AssertionCommit]) -> SQLiteRowStatements {
        SQLiteRowStatements(
            "WITH asked (challenge, app_id, purpose, expiry, user_id, key_id, counter, at, request) AS (VALUES",
            rows: commits.map { commit in
                let claim = commit.claim
                return [
                    SQLiteValues.bind(claim.challengeId), .text(claim.appId), .text(claim.purpose.rawValue), SQLiteValues.bind(claim.expiryThreshold),
                    .text(claim.userId), SQLiteValues.bind(claim.keyId), .integer(SQLiteInt64(commit.counter)), SQLiteValues.bind(claim.at),
                    SQLiteValues.bind(commit.requestContext),
                ]
            },
            width: 9,
            """
            )
            UPDATE challenges SET consumed_at = asked.at, consumed_key_id = asked.key_id, consumed_counter = asked.counter,
                                  consumed_request = asked.request
            FROM asked
            WHERE challenges.id = asked.challenge AND challenges.app_id = asked.app_id AND challenges.purpose = asked.purpose
              AND challenges.consumed_at IS NULL AND challenges.expires_at > asked.expiry
              AND (challenges.user_id IS NULL OR challenges.user_id = asked.user_id)
              AND (challenges.key_id IS NULL OR challenges.key_id = asked.key_id)
              AND EXISTS (
                  SELECT 1 FROM app_keys AS k
                  WHERE k.app_id = asked.app_id AND k.key_id = asked.key_id AND k.status = 'active' AND k.counter < asked.counter
              )
            RETURNING challenges.id AS challenge,
                      (SELECT counter FROM app_keys AS k WHERE k.app_id = challenges.app_id AND k.key_id = challenges.consumed_key_id) AS key_counter
            """,
            rowsPerStatement: SQLiteRowStatements.maximumJoinedRows
        )
    }

    /// The claimed assertions' advances (no two name one key), returning the keys' rows.
    static func advanceStatements(_ claimed: [AssertionCommit]) -> SQLiteRowStatements {
        SQLiteRowStatements(
            "WITH advanced (app_id, key_id, counter, at) AS (VALUES",
            rows: claimed.map { [.text($0.claim.appId), SQLiteValues.bind($0.claim.keyId), .integer(SQLiteInt64($0.counter)), SQLiteValues.bind($0.claim.at)] },
            width: 4,
            """
            )
            UPDATE app_keys SET counter = advanced.counter, last_assertion_at = advanced.at
            FROM advanced
            WHERE app_keys.app_id = advanced.app_id AND app_keys.key_id = advanced.key_id AND app_keys.status = 'active'
              AND app_keys.counter < advanced.counter
            RETURNING *
            """,
            rowsPerStatement: SQLiteRowStatements.maximumJoinedRows
        )
    }
}
