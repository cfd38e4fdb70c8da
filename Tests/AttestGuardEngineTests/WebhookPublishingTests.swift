@testable import AttestGuardEngine
import AttestGuardStore
import AttestGuardWire
import AttestTestSupport
import AttestVocabulary
import DeviceSimulator
import Foundation
import Testing

/// What the engine's services publish for webhooks: a revocation once (not again for a key revoked already), and a
/// review's rejection before the revocation it asks for, both ordered by the key; a receiver of other apps takes none.
@Suite("Webhooks: what the services publish")
struct WebhookPublishingTests {
    static let appId = SimulatorFixtures.app.appId
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    static func engine(_ store: any RiskStore, clock: ManualClock) throws -> Engine {
        var settings = EngineSettings()
        let secret = try #require(WebhookSecret(text: "whsec_" + Data(repeating: 1, count: 32).base64EncodedString()))
        settings.webhooks = [
            WebhookEndpoint(name: "support", url: URL(string: "https://support.example.com/hooks")!, secret: secret),
            WebhookEndpoint(name: "other-app", url: URL(string: "https://other.example.com/hooks")!, secret: secret, apps: ["ABCDE12345.com.example.other"]),
        ]
        return Engine(
            store: store, apps: AppCatalog([AppPolicy(appId: appId, environments: [.development])]), settings: settings, clock: clock
        )
    }

    static func bodies(_ store: any RiskStore) async throws -> [WebhookEventBody] {
        try await store.webhookEvents(filter: WebhookEventFilter(), cursor: nil, limit: 100).reversed().map { record in
            #expect(record.webhook == "support", "the other app's receiver takes none")
            return try WireJSON.decoder().decode(WebhookEventBody.self, from: Data(record.payload.utf8))
        }
    }

    @Test("a revocation publishes key.revoked once; a rejection publishes its decision, then its revocation", arguments: TestStoreBackend.available)
    func revocationsAndReviews(backend: TestStoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let clock = ManualClock(Self.start)
            let engine = try Self.engine(test.store, clock: clock)
            let keys = try await ReceiptFleet.register(count: 2, in: test.store, at: Self.start, placeholderReceipts: true, parallelism: 1)
            _ = try await engine.keys.revoke(appId: Self.appId, keyId: keys[0].keyId, by: "ops")
            _ = try await engine.keys.revoke(appId: Self.appId, keyId: keys[0].keyId, by: "ops")
            var bodies = try await Self.bodies(test.store)
            let first = keys[0].keyId.base64EncodedString()
            #expect(bodies.map(\.type) == ["key.revoked"] && bodies.first?.key == WebhookKeyBody(keyId: first, by: "ops"))
            #expect(bodies.first?.subject == "key:\(first)" && bodies.first?.appId == Self.appId && bodies.first?.createdAt == Self.start)

            let second = keys[1].keyId.base64EncodedString()
            try await test.store.openReviewItems([ReviewOpening(
                appId: Self.appId, subjectKind: .key, subject: second, keyId: second, userHash: nil, deviceHash: nil, endpoint: .assertion,
                action: "purchase", score: 70, fired: "farm", ruleSetVersion: "v1", requestId: "r1", at: Self.start, expiresAt: Self.start.addingTimeInterval(3_600)
            )], now: Self.start)
            let item = try #require(try await test.store.reviewItems(appId: Self.appId, filter: .pending, cursor: nil, limit: 1, now: Self.start).first)
            _ = try await engine.reviews.decide(appId: Self.appId, id: item.id, analyst: "ana", decision: .reject, note: "", followUps: [.revokeKey])
            bodies = try await Self.bodies(test.store)
            #expect(bodies.map(\.type) == ["key.revoked", "review.decided", "key.revoked"])
            #expect(bodies[1].review == WebhookReviewBody(
                itemId: String(item.id), decision: "reject", label: "fraud", analyst: "ana", subjectKind: "key", subjectValue: second, keyId: second,
                actions: ["revoke_key"]
            ))
            #expect(bodies[2].key == WebhookKeyBody(keyId: second, by: "review:\(item.id)"))
            #expect(bodies[1].subject == bodies[2].subject, "ordered together: the decision reaches a receiver first")
            #expect(Set(bodies.map(\.id)).count == 3)
        }
    }

    @Test("a verdict's event is queued and written by the flush; with no receiver, nothing is")
    func verdictQueue() async throws {
        try await withTestStore(.sqlite) { (test: TestStore) async throws in
            let engine = try Self.engine(test.store, clock: ManualClock(Self.start))
            let event = WebhookEvent.keyRevoked(appId: Self.appId, keyId: "k", by: "ops", at: Self.start)
            #expect(engine.webhooks.publisher.note(event) && engine.webhooks.publisher.queued == 1)
            #expect(try await test.store.webhookEvents(filter: WebhookEventFilter(), cursor: nil, limit: 10).isEmpty)
            try await engine.webhooks.publisher.flush()
            #expect(engine.webhooks.publisher.queued == 0)
            #expect(try await test.store.webhookEvents(filter: WebhookEventFilter(), cursor: nil, limit: 10).count == 1)
            let silent = WebhookPublisher(endpoints: [], store: test.store)
            #expect(!silent.note(event) && silent.queued == 0)
        }
    }
}
