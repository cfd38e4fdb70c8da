import AttestTestSupport
import Foundation
import Logging
import PostgresNIO
import AttestGuardStore
import Testing

/// What the store sends PostgreSQL per operation, counted by the server itself (`pg_stat_statements`, by the role
/// a fresh store connects as): an accepted assertion's commit is one statement, prepared once per connection, and
/// still one (unnamed) through PgBouncer in transaction mode.
@Suite("PostgreSQL round trips", .enabled(if: TestPostgres.isEnabled, "no PostgreSQL"))
struct RoundTripTests {
    @Test("committing an assertion is one statement; a refused one adds only the reads that name the cause",
          arguments: StoreBackend.available.filter { $0 != .sqlite })
    func commitIsOneStatement(backend: StoreBackend) async throws {
        guard try await TestPostgres.countsStatementsOrFailsUnderCI() else { return }
        let test: TestStore
        let role: String
        if backend == .pgbouncer {
            let (url, name) = try await TestPgBouncer.shared().freshRoleURL(prefix: "rt")
            (test, role) = (try await TestStore.postgres(url: url, poolSize: 1, pooler: .transaction), name)
        } else {
            let (url, name) = try await TestPostgres.freshRoleURL(prefix: "rt")
            (test, role) = (try await TestStore.postgres(url: url, poolSize: 1), name)
        }
        do {
            let key = try await StoreFixtures.register(StoreFixtures.key(), in: test.store)
            #expect(try await StoreFixtures.assert(key, counter: 1, in: test.store).isCommitted)   // prepares the statement (pooler none)
            var commits: [AssertionCommit] = []
            for counter in 2...4 {
                let challenge = StoreFixtures.challenge(keyId: key.keyId)
                _ = try await test.store.issueChallenge(challenge, quota: StoreFixtures.quota)
                commits.append(AssertionCommit(claim: StoreFixtures.claim(challenge, key: key), counter: Int64(counter), requestContext: nil))
            }
            // A count across an eviction of pg_stat_statements entries (the suite's other schemas fill its table)
            // may have lost calls: such a count is not checked.
            for commit in commits {
                let (evictions, before) = (try await TestPostgres.statementEvictions(), try await TestPostgres.statementCalls(of: role))
                #expect(try await test.store.commitAssertion(commit) == .committed(previousCounter: commit.counter - 1))
                let counted = try await TestPostgres.statementCalls(of: role) - before
                if try await TestPostgres.statementEvictions() == evictions { #expect(counted == 1) }
            }
            // A replay: the one statement, then the challenge and key read back to name the cause.
            let (evictions, before) = (try await TestPostgres.statementEvictions(), try await TestPostgres.statementCalls(of: role))
            #expect(try await test.store.commitAssertion(commits[2]).rejectionCode == .assertionAlreadyAccepted)
            let counted = try await TestPostgres.statementCalls(of: role) - before
            if try await TestPostgres.statementEvictions() == evictions { #expect(counted <= 3) }
        } catch {
            await test.close()
            throw error
        }
        await test.close()
    }
}
