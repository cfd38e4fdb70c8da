import AttestVocabulary
import DeviceSimulator
import AttestCore
import AttestGuardEngine
import AttestGuardRuntime
import AttestGuardServer
import AttestTestSupport
import Foundation
import AttestGuardStore
import Testing

/// `POST /v1/score` and the verdicts of attestations and assertions, with the shipped rules (`Rules/`), simulator
/// devices, and risk metrics and DeviceCheck bits as the receipt scheduler and the DeviceCheck routes store them.
@Suite("HTTP: risk verdicts")
struct ScoreRouteTests {
    /// Attests a simulated key and returns it with its base64 id.
    static func attested(_ api: APIClient, user: String, appId: String = ServerHarness.appId) async throws -> (SimulatedAppClient, String) {
        let app = SimulatedApps.make(user: user, device: "\(user)-phone", appId: appId)
        let reply = try await api.attest(app)
        #expect(reply.status == 201, "\(reply.text)")
        return (app, Data(app.key.keyId).base64EncodedString())
    }

    /// Stores a redeemed RECEIPT with `metric` for the key, as the scheduler would.
    static func redeem(_ api: APIClient, keyId: String, metric: Int, appId: String = ServerHarness.appId) async throws {
        let engine = try #require(api.engine)
        let key = try #require(Data(base64Encoded: keyId))
        // A second after the ATTEST receipt, which the simulator creates at the attestation instant.
        let now = api.clock.now().addingTimeInterval(1)
        let receipt = ReceiptRecord(
            appId: appId, keyId: key, receiptType: .receipt, receipt: Data("refreshed".utf8),
            createdAt: now, notBefore: now.addingTimeInterval(86_400), expiresAt: now.addingTimeInterval(90 * 86_400),
            riskMetric: metric, storedAt: now, nextRefreshAt: now.addingTimeInterval(72_000)
        )
        let outcome = try await engine.store.replaceReceipt(ReceiptReplacement(receipt: receipt, leaseOwner: "test", observedAt: now))
        #expect(outcome == .replaced(historyRecorded: true))
        // As the refresher of this process does: its verdicts read the new receipt at once.
        engine.factsCache.keyChanged(appId: appId, keyId: key)
    }

    static func reasons(_ reply: APIClient.Reply) -> [String: String] {
        let list = reply["reasons"] as? [[String: Any]] ?? []
        return Dictionary(uniqueKeysWithValues: list.map { ($0["ruleId"] as? String ?? "?", $0["message"] as? String ?? "") })
    }

    @Test("an honest device is allowed; the response names the rule set and the signals it read", arguments: ServerBackend.available)
    func honest(backend: ServerBackend) async throws {
        try await ServerHarness.run(backend) { api in
            let (_, keyId) = try await Self.attested(api, user: "alice")
            try await Self.redeem(api, keyId: keyId, metric: 1)
            let reply = try await api.post("/v1/score", json: ["appId": ServerHarness.appId, "keyId": keyId, "userId": "alice", "action": "purchase"])
            #expect(reply.status == 200, "\(reply.text)")
            #expect(reply["decision"] as? String == "allow")
            #expect(reply["score"] as? Double == 0)
            #expect((reply["ruleSetVersion"] as? String)?.hasPrefix("sha256:") == true)
            #expect(reply["enforced"] as? Bool == true)
            let signals = try #require(reply["signals"] as? [String: Any])
            #expect(signals["key.status"] as? String == "active")
            #expect(signals["receipt.risk_metric"] as? Double == 1)
            #expect(signals["request.action"] as? String == "purchase")
            #expect(signals["velocity.assertions.key.1m"] as? Double == 0)
            #expect(signals["velocity.failed_verifications.ip.1h"] is NSNull, "no IP in the request: missing, not zero")
            // Written in name order, as JSONEncoder's sorted keys did: every key the object has, once, ascending.
            let signalsText = try #require(reply.text.split(separator: #""signals":{"#).last)
            let written = signalsText.matches(of: /"([a-z0-9_.]+)":/).map { String($0.output.1) }
            #expect(written == signals.keys.sorted(), "\(written)")
        }
    }

    @Test("a farm device (risk metric 14) is reviewed with the reason; a promotion claimed again is denied", arguments: ServerBackend.available)
    func farmAndPromo(backend: ServerBackend) async throws {
        try await ServerHarness.run(backend) { api in
            let (_, farmKey) = try await Self.attested(api, user: "mallory")
            try await Self.redeem(api, keyId: farmKey, metric: 14)
            let farm = try await api.post("/v1/score", json: ["appId": ServerHarness.appId, "keyId": farmKey, "userId": "mallory"])
            #expect(farm["decision"] as? String == "review", "\(farm.text)")
            #expect(Self.reasons(farm)["key-farm"] == "the device has 14 attested keys in 30 days")

            let (_, promoKey) = try await Self.attested(api, user: "bob")
            try await Self.redeem(api, keyId: promoKey, metric: 1)
            let engine = try #require(api.engine)
            try await engine.store.storeDeviceCheckBits(DeviceCheckRecord(
                scope: .app(ServerHarness.appId), environment: .development,
                subject: DeviceCheckSubject(kind: .key, value: promoKey), bit0: true, bit1: false, found: true,
                lastUpdateTime: "2025-11", observedAt: api.clock.now()
            ))
            engine.factsCache.deviceCheckBitsChanged(
                scope: .app(ServerHarness.appId), environment: .development, subject: DeviceCheckSubject(kind: .key, value: promoKey)
            )
            let promo = try await api.post("/v1/score", json: ["appId": ServerHarness.appId, "keyId": promoKey, "userId": "bob", "action": "claim_promo"])
            #expect(promo["decision"] as? String == "deny", "\(promo.text)")
            #expect(Self.reasons(promo)["promo-already-claimed"] == "this device already claimed the promotion (DeviceCheck bit 0)")
            let purchase = try await api.post("/v1/score", json: ["appId": ServerHarness.appId, "keyId": promoKey, "userId": "bob", "action": "purchase"])
            #expect(purchase["decision"] as? String == "allow")
        }
    }

    @Test("no key is a risk signal, an unknown key is reviewed; attributes of the wrong type and missing scopes are refused")
    func edges() async throws {
        try await ServerHarness.run(.sqlite) { api in
            let throttled = try await api.post("/v1/score", json: ["appId": ServerHarness.appId, "userId": "carol", "attestStatus": "throttled"])
            #expect(throttled["decision"] as? String == "allow")
            #expect(Set(Self.reasons(throttled).keys) == ["no-attested-key", "attestation-unavailable-on-client"])
            #expect(throttled["score"] as? Double == 30)
            // "unsupported" is only a claim: without DeviceCheck validation of the user's device it is reviewed.
            let unsupported = try await api.post("/v1/score", json: ["appId": ServerHarness.appId, "userId": "carol", "attestStatus": "unsupported"])
            #expect(unsupported["decision"] as? String == "review")
            #expect(Set(Self.reasons(unsupported).keys) == ["no-attested-key", "attestation-unavailable-on-client", "unsupported-without-devicecheck"])

            let unknown = try await api.post("/v1/score", json: ["appId": ServerHarness.appId, "keyId": Data(repeating: 7, count: 32).base64EncodedString()])
            #expect(unknown["decision"] as? String == "review")
            #expect(Self.reasons(unknown)["unknown-key"] != nil)

            let forbidden = try await api.post("/v1/score", json: ["appId": ServerHarness.appId], apiKey: ServerHarness.narrowKey)
            #expect(forbidden.status == 403)
            let badKey = try await api.post("/v1/score", json: ["appId": ServerHarness.appId, "keyId": "not base64!"])
            #expect(badKey.status == 400)
            let unknownApp = try await api.post("/v1/score", json: ["appId": "ZZZZZ99999.nope"])
            #expect(unknownApp.status == 404 || unknownApp.status == 403)
        }
    }

    @Test("keys a user replaced on the same device count as key.superseded_keys", arguments: ServerBackend.available)
    func supersededKeys(backend: ServerBackend) async throws {
        try await ServerHarness.run(backend) { api in
            var newest = ""
            for index in 0..<4 {
                let app = SimulatedApps.make(user: "erin", device: "erin-phone", keyIndex: index)
                let reply = try await api.attest(app)
                #expect(reply.status == 201, "\(reply.text)")
                newest = Data(app.key.keyId).base64EncodedString()
            }
            let other = SimulatedApps.make(user: "erin", device: "erin-tablet", keyIndex: 9)
            #expect(try await api.attest(other).status == 201)
            let reply = try await api.post("/v1/score", json: ["appId": ServerHarness.appId, "keyId": newest, "userId": "erin"])
            #expect((reply["signals"] as? [String: Any])?["key.superseded_keys"] as? Double == 3, "\(reply.text)")
            #expect(Self.reasons(reply)["key-churn"] == "3 earlier keys of this user on this device")
        }
    }

    @Test("monitor mode always allows, says it did not enforce, and reports what the rules decided")
    func monitorMode() async throws {
        try await ServerHarness.run(.sqlite, extraEnvironment: ["ATTESTGUARD_APPS_MAIN_MODE": "monitor"]) { api in
            let (_, keyId) = try await Self.attested(api, user: "mallory")
            try await Self.redeem(api, keyId: keyId, metric: 30)
            let reply = try await api.post("/v1/score", json: ["appId": ServerHarness.appId, "keyId": keyId])
            #expect(reply["decision"] as? String == "allow", "\(reply.text)")
            #expect(reply["enforced"] as? Bool == false)
            #expect(reply["ruleDecision"] as? String == "review")
        }
    }

    @Test("an assertion burst from one key is reviewed from the 20th assertion in a minute", arguments: ServerBackend.available)
    func assertionBurst(backend: ServerBackend) async throws {
        try await ServerHarness.run(backend) { api in
            var (app, keyId) = try await Self.attested(api, user: "frank")
            try await Self.redeem(api, keyId: keyId, metric: 1)
            var decisions: [String] = []
            for _ in 1...20 {
                let reply = try await api.assert(&app)
                #expect(reply.status == 200, "\(reply.text)")
                decisions.append((reply["verdict"] as? [String: Any])?["decision"] as? String ?? "?")
            }
            #expect(decisions == Array(repeating: "allow", count: 19) + ["review"])
            let score = try await api.post("/v1/score", json: ["appId": ServerHarness.appId, "keyId": keyId, "userId": "frank"])
            #expect(Self.reasons(score)["assertion-burst"] == "20 assertions in a minute and 20 in an hour from this key", "\(score.text)")
            // Another key of another user is not affected.
            let (_, calm) = try await Self.attested(api, user: "grace")
            try await Self.redeem(api, keyId: calm, metric: 1)
            let other = try await api.post("/v1/score", json: ["appId": ServerHarness.appId, "keyId": calm, "userId": "grace"])
            #expect(other["decision"] as? String == "allow")
        }
    }

    @Test("failed verifications count against a key only when it signed them: a stranger naming the key cannot poison it", arguments: ServerBackend.available)
    func failedVerificationsOfAnotherKey(backend: ServerBackend) async throws {
        try await ServerHarness.run(backend) { api in
            var (alice, aliceKey) = try await Self.attested(api, user: "alice")
            try await Self.redeem(api, keyId: aliceKey, metric: 1)
            var (mallory, _) = try await Self.attested(api, user: "mallory")
            // Five assertions mallory's key signed, sent naming alice's key and user: the signature does not verify.
            for round in 1...5 {
                let challenge = try await api.challenge(purpose: "assertion", userId: "alice", keyId: aliceKey)
                var forged = mallory.assertion(challenge: challenge, path: "/api/orders/\(round)", ip: "198.51.100.7")
                forged.keyId = aliceKey
                forged.userId = "alice"
                let refused = try await api.post("/v1/assertions", forged)
                #expect(refused.status == 422 && refused.errorCode == "signature_invalid", "\(refused.text)")
            }
            let velocity = { (ip: String) async throws -> (key: Double?, ip: Double?) in
                let score = try await api.post("/v1/score", json: ["appId": ServerHarness.appId, "keyId": aliceKey, "userId": "alice", "ip": ip])
                let signals = score["signals"] as? [String: Any] ?? [:]
                return (signals["velocity.failed_verifications.key.1h"] as? Double, signals["velocity.failed_verifications.ip.1h"] as? Double)
            }
            var counts = try await velocity("198.51.100.7")
            #expect(counts.key == 0 && counts.ip == 5, "the caller's IP carries them, alice's key none: \(counts)")
            // A replay alice's key signed counts against the key.
            let challenge = try await api.challenge(purpose: "assertion", userId: "alice", keyId: aliceKey)
            let signed = alice.assertion(challenge: challenge, path: "/api/orders/replayed", ip: "203.0.113.9")
            #expect(try await api.post("/v1/assertions", signed).status == 200)
            #expect(try await api.post("/v1/assertions", signed).status == 409)
            counts = try await velocity("203.0.113.9")
            #expect(counts.key == 1 && counts.ip == 1, "\(counts)")
        }
    }

    @Test("assertions and attestations carry the verdict of the same rules")
    func verdictsOnVerification() async throws {
        try await ServerHarness.run(.sqlite) { api in
            var (app, keyId) = try await Self.attested(api, user: "dave")
            try await Self.redeem(api, keyId: keyId, metric: 12)
            let asserted = try await api.assert(&app)
            #expect(asserted.status == 200, "\(asserted.text)")
            let verdict = try #require(asserted["verdict"] as? [String: Any])
            #expect(verdict["decision"] as? String == "review")
            #expect((verdict["ruleSetVersion"] as? String)?.hasPrefix("sha256:") == true)
            #expect(((verdict["reasons"] as? [[String: Any]])?.first)?["ruleId"] as? String == "key-farm")
        }
    }
}
