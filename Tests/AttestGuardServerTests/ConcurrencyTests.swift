import DeviceSimulator
import AttestTestSupport
import Foundation
import Testing

@Suite("HTTP: concurrent submissions")
struct ConcurrencyTests {
    @Test("64 concurrent submissions of one assertion: one 200, 63 assertion_already_accepted", arguments: ServerBackend.available)
    func oneWinner(backend: ServerBackend) async throws {
        try await ServerHarness.run(backend) { api in
            var app = SimulatedApps.make(user: "pat", device: "pat-1")
            #expect(try await api.attest(app).status == 201)
            let challenge = try await api.challenge(purpose: "assertion", userId: "pat", keyId: app.key.keyIdBase64)
            let body = try JSONEncoder().encode(app.assertion(challenge: challenge))
            let statuses = try await withThrowingTaskGroup(of: (Int, String?).self) { group in
                for _ in 0..<64 {
                    group.addTask {
                        let reply = try await api.send(.post, "/v1/assertions", body: body)
                        return (reply.status, reply.errorCode)
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.filter { $0.0 == 200 }.count == 1)
            #expect(statuses.filter { $0 == (409, "assertion_already_accepted") }.count == 63)
        }
    }
}
