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
/// SQLiteNIO's thread pool and back, which is most of an assertion's time on this store, so a batch of assertions
/// shares its `BEGIN IMMEDIATE` and `COMMIT`, and each assertion takes two statements: its claim and its counter's
/// advance, which returns the key's row for the verdict's facts.
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
        do {
            return try await transaction { connection in
                var answers = [Result<ClaimedAssertion, any Error>](repeating: .success(.refused), count: commits.count)
                for index in order {
                    answers[index] = .success(try await Self.claim(commits[index], on: connection))
                }
                return answers
            }
        } catch where commits.count > 1 {
            var answers = [Result<ClaimedAssertion, any Error>](repeating: .success(.refused), count: commits.count)
            for index in order {
                do {
                    answers[index] = .success(try await transaction { connection in try await Self.claim(commits[index], on: connection) })
                } catch {
                    answers[index] = .failure(error)
                }
            }
            return answers
        }
    }

    /// One assertion inside the batch's transaction, which holds SQLite's write lock: the challenge is consumed only
    /// if the key can advance to the assertion's counter, so the advance that follows cannot fail and a refused
    /// assertion writes nothing. The claim returns the counter it replaces, the advance the key's row.
    private static func claim(_ commit: AssertionCommit, on connection: SQLiteConnection) async throws -> ClaimedAssertion {
        let claim = commit.claim
        let consumed = try await connection.query(
            """
            UPDATE challenges SET consumed_at = ?1, consumed_key_id = ?2, consumed_counter = ?3, consumed_request = ?4
            WHERE id = ?5 AND app_id = ?6 AND purpose = ?7 AND consumed_at IS NULL AND expires_at > ?8
              AND (user_id IS NULL OR user_id = ?9) AND (key_id IS NULL OR key_id = ?2)
              AND EXISTS (SELECT 1 FROM app_keys WHERE app_id = ?6 AND key_id = ?2 AND status = 'active' AND counter < ?3)
            RETURNING (SELECT counter FROM app_keys WHERE app_id = ?6 AND key_id = ?2) AS key_counter
            """,
            [
                SQLiteValues.bind(claim.at), SQLiteValues.bind(claim.keyId), .integer(SQLiteInt64(commit.counter)),
                SQLiteValues.bind(commit.requestContext), SQLiteValues.bind(claim.challengeId), .text(claim.appId),
                .text(claim.purpose.rawValue), SQLiteValues.bind(claim.expiryThreshold), .text(claim.userId),
            ]
        )
        guard consumed.count == 1 else { return .refused }
        guard let previous = consumed[0].column("key_counter")?.integer else {
            throw StoreError(.queryFailed, "the claimed challenge's key has no counter")
        }
        let advanced = try await connection.query(
            """
            UPDATE app_keys SET counter = ?3, last_assertion_at = ?4
            WHERE app_id = ?1 AND key_id = ?2 AND status = 'active' AND counter < ?3
            RETURNING *
            """,
            [.text(claim.appId), SQLiteValues.bind(claim.keyId), .integer(SQLiteInt64(commit.counter)), SQLiteValues.bind(claim.at)]
        )
        // The claim checked the same conditions under the same write lock: a key that does not advance now is a bug,
        // and the transaction rolls back rather than keep a consumed challenge without its counter.
        guard advanced.count == 1 else { throw StoreError(.queryFailed, "the key did not advance after its claim") }
        return .committed(previousCounter: Int64(previous), key: try KeyRecord(sqlite: advanced[0]))
    }
}
