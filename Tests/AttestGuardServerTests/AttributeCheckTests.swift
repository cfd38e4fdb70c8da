import AttestGuardWire
import AttestTestSupport
import DeviceSimulator
import Foundation
import Testing

/// An attribute of the wrong type for the rule set in force is refused before an assertion commits: the challenge
/// and the counter stay unspent, so the app's request can be sent again with the attribute right.
@Suite("HTTP: attribute types checked before the commit")
struct AttributeCheckTests {
    static let rules = """
        version: 1
        attributes:
          account_age: duration
        rules:
          - id: young-account
            when: attributes.account_age < 1d
            score: 10
        """

    /// An assertion body with `attributes` in its request, as JSON.
    static func body(_ payload: AssertionRequestBody, attributes: [String: Any]) throws -> [String: Any] {
        var body = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(payload)) as? [String: Any])
        var request = try #require(body["request"] as? [String: Any])
        request["attributes"] = attributes
        body["request"] = request
        return body
    }

    @Test("a mistyped attribute is 400 invalid_attribute and spends nothing; the same assertion then commits", arguments: ServerBackend.available)
    func mistypedAttributeSpendsNothing(backend: ServerBackend) async throws {
        try await ServerHarness.run(backend, rules: Self.rules) { api in
            var app = SimulatedApps.make(user: "alice", device: "alice-phone")
            #expect(try await api.attest(app).status == 201)
            let keyId = Data(app.key.keyId).base64EncodedString()
            let challenge = try await api.challenge(purpose: "assertion", userId: "alice", keyId: keyId)
            let payload = app.assertion(challenge: challenge)

            let refused = try await api.post("/v1/assertions", json: try Self.body(payload, attributes: ["account_age": true]))
            #expect(refused.status == 400, "\(refused.text)")
            #expect(refused.errorCode == "invalid_attribute")
            let stored = try #require(try await api.engine?.store.key(appId: ServerHarness.appId, keyId: Data(app.key.keyId)))
            #expect(stored.counter == 0, "the counter did not advance")

            let accepted = try await api.post("/v1/assertions", json: try Self.body(payload, attributes: ["account_age": "2h"]))
            #expect(accepted.status == 200, "\(accepted.text)")
            #expect((accepted["verdict"] as? [String: Any])?["score"] as? Double == 10, "the young-account rule read the attribute")
        }
    }
}
