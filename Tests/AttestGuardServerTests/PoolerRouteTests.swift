import AttestGuardEngine
import AttestTestSupport
import AttestVocabulary
import DeviceSimulator
import Foundation
import Testing

/// The server behind PgBouncer in transaction mode: `database.pooler: transaction` serves attestations and assertions,
/// and with the setting forgotten an assertion that meets a prepared-statement mismatch answers `503
/// store_unavailable`, never another 5xx.
@Suite("HTTP: behind PgBouncer in transaction mode", .enabled(if: TestPgBouncer.isEnabled, "no PostgreSQL or PgBouncer"))
struct PoolerRouteTests {
    /// Signed assertion bodies, made while the server runs with the setting and posted after a restart without it.
    actor Bodies {
        var list: [Data] = []
        func append(_ body: Data) { list.append(body) }
    }

    @Test("with the setting, keys attest and assertions answer 200; forgotten, concurrent assertions answer 200 or 503 store_unavailable")
    func assertionsThroughPgBouncer() async throws {
        let url = try await TestPgBouncer.shared().freshRoleURL(prefix: "sp").url
        let clock = ManualClock(SimulatorFixtures.now)
        let bodies = Bodies()
        try await ServerHarness.run(.postgres, extraEnvironment: ["ATTESTGUARD_DATABASE_POOLER": "transaction"], clock: clock, postgresURL: url) { api in
            for index in 0..<48 {
                var app = SimulatedApps.make(user: "user-\(index)", device: "device-\(index)")
                #expect(try await api.attest(app).status == 201)
                let reply = try await api.assert(&app)
                #expect(reply.status == 200, "\(reply.text)")
                let challenge = try await api.challenge(purpose: "assertion", appId: app.app.appId, userId: app.userId, keyId: Data(app.key.keyId).base64EncodedString())
                await bodies.append(try JSONEncoder().encode(app.assertion(challenge: challenge)))
            }
        }
        let list = await bodies.list
        // The same database through the same PgBouncer, the setting forgotten: the assertions at once, so that the
        // store's connections prepare their statements on server connections that others then get. Each assertion
        // its own statement: batched, the 48 went as a few statements on two or three connections, which could all
        // find their statements where they had prepared them (a CI run saw no mismatch); one at a time they open
        // more of the pool's connections than PgBouncer has server connections for the role (4), and the fifth to
        // prepare the commit prepares it where another already has.
        try await ServerHarness.run(.postgres, extraEnvironment: ["ATTESTGUARD_DATABASE_BATCH_SIZE": "1"], clock: clock, postgresURL: url) { api in
            let replies = try await withThrowingTaskGroup(of: (status: Int, code: String?, text: String).self) { group in
                for body in list {
                    group.addTask {
                        let reply = try await api.send(.post, "/v1/assertions", body: body)
                        return (reply.status, reply.errorCode, reply.text)
                    }
                }
                return try await group.reduce(into: [(status: Int, code: String?, text: String)]()) { $0.append($1) }
            }
            for reply in replies {
                #expect(reply.status == 200 || reply.status == 503, "\(reply.status) \(reply.text)")
                if reply.status == 503 { #expect(reply.code == ErrorCode.storeUnavailable.rawValue, "\(reply.text)") }
            }
            #expect(replies.contains { $0.status == 503 }, "no assertion met a prepared-statement mismatch")
        }
    }
}
