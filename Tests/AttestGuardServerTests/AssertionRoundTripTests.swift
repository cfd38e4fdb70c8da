import AttestTestSupport
import Foundation
import Testing

/// What one accepted assertion costs PostgreSQL, counted by the server itself (`pg_stat_statements`, by the role
/// the store connects as): with the key seen before and the statement prepared on the connection, `POST
/// /v1/assertions` sends one statement, which consumes the challenge, advances the counter and reads the verdict's
/// facts. (The decision log and velocity are written behind, in batches of many requests, and not counted.)
@Suite("HTTP: one round trip per accepted assertion", .enabled(if: TestPostgres.isEnabled, "no PostgreSQL"))
struct AssertionRoundTripTests {
    @Test("an accepted assertion is one statement on PostgreSQL, verdict included")
    func oneStatementPerAssertion() async throws {
        guard try await TestPostgres.countsStatementsOrFailsUnderCI() else { return }
        let (url, role) = try await TestPostgres.freshRoleURL(prefix: "ra")
        try await ServerHarness.run(.postgres, extraEnvironment: ["ATTESTGUARD_DATABASE_POOL_SIZE": "1"], postgresURL: url) { api in
            var app = SimulatedApps.make(user: "alice", device: "alice-phone")
            #expect(try await api.attest(app).status == 201)
            #expect(try await api.assert(&app).status == 200)   // keeps the key, prepares the statement
            // Other services of the server (heartbeat, policy reloads, challenge purge) run on their own schedule and
            // are left out of the count; anything else they add only adds, so the fewest a round counts is what the
            // assertion itself sends (on a busy machine a round can last seconds).
            var counted: [Int64] = []
            for round in 1...8 {
                let challenge = try await api.challenge(purpose: "assertion", appId: app.app.appId, userId: app.userId, keyId: Data(app.key.keyId).base64EncodedString())
                let body = app.assertion(challenge: challenge, path: "/api/orders/\(round)")
                let before = try await TestPostgres.statementCalls(of: role, excludingWriteBehind: true, excludingBackground: true)
                let reply = try await api.post("/v1/assertions", body)
                counted.append(try await TestPostgres.statementCalls(of: role, excludingWriteBehind: true, excludingBackground: true) - before)
                #expect(reply.status == 200, "\(reply.text)")
                #expect(reply["verdict"] != nil)
            }
            #expect(counted.min() == 1, "statements per round: \(counted)")
        }
    }
}
