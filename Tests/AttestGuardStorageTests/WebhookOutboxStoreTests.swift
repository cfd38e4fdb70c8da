import AttestVocabulary
import AttestTestSupport
import Foundation
import AttestGuardStore
import Testing

@Suite("The webhook outbox in the store")
struct WebhookOutboxStoreTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    static func draft(_ event: String, subject: String, webhook: String = "support", at offset: TimeInterval = 0) -> WebhookEventDraft {
        WebhookEventDraft(
            eventId: event, webhook: webhook, appId: "TEAMID1234.com.example.app", subject: subject, type: .keyRevoked,
            payload: #"{"id":"\#(event)"}"#, createdAt: start.addingTimeInterval(offset)
        )
    }

    static func attempt(
        _ event: WebhookEventRecord, _ outcome: WebhookAttemptOutcome, at offset: TimeInterval, next: TimeInterval? = nil, token: String? = nil
    ) -> WebhookAttempt {
        WebhookAttempt(
            eventRow: event.id, leaseToken: token ?? event.leaseToken ?? "", attempt: event.attempts, outcome: outcome,
            attemptedAt: start.addingTimeInterval(offset), durationMilliseconds: 12, statusCode: outcome == .delivered ? 204 : 503,
            error: outcome == .delivered ? "" : "HTTP 503", nextAttemptAt: next.map { start.addingTimeInterval($0) }, process: "test"
        )
    }

    static func claim(_ store: some WebhookOutboxStore, at offset: TimeInterval, token: String = "t", limit: Int = 10) async throws -> [WebhookEventRecord] {
        try await store.claimWebhookEvents(now: start.addingTimeInterval(offset), leaseUntil: start.addingTimeInterval(offset + 60), token: token, limit: limit)
    }

    @Test("only the first pending event of a receiver and subject is claimed; the next waits for it", arguments: TestStoreBackend.available)
    func orderPerSubject(backend: TestStoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let store = test.store
            try await store.enqueueWebhookEvents([
                Self.draft("e1", subject: "key:a"), Self.draft("e2", subject: "key:a"), Self.draft("e3", subject: "key:b"),
                Self.draft("e1", subject: "key:a", webhook: "ledger"),
            ])
            try await store.enqueueWebhookEvents([Self.draft("e1", subject: "key:a")])
            let parked = try await store.webhookEvents(filter: WebhookEventFilter(webhook: "support"), cursor: nil, limit: 10)
            #expect(parked.map(\.nextAttemptAt) == [Self.start, WebhookOutboxSQL.parkedUntil, Self.start], "e2 waits parked behind e1")
            let first = try await Self.claim(store, at: 1)
            #expect(first.map(\.eventId) == ["e1", "e3", "e1"] && first.map(\.webhook) == ["support", "support", "ledger"])
            #expect(first.allSatisfy { $0.attempts == 1 && $0.leaseToken == "t" && $0.status == .pending })
            #expect(try await Self.claim(store, at: 2).isEmpty, "leased events and those behind them wait")
            // e1 fails once: e2 still waits behind it until e1 is delivered.
            #expect(try await store.finishWebhookAttempt(Self.attempt(first[0], .retry, at: 3, next: 20)))
            #expect(try await Self.claim(store, at: 10).isEmpty)
            let again = try await Self.claim(store, at: 20)
            #expect(again.map(\.eventId) == ["e1"] && again[0].attempts == 2 && again[0].lastStatus == 503 && again[0].lastError == "HTTP 503")
            #expect(try await store.finishWebhookAttempt(Self.attempt(again[0], .delivered, at: 21)))
            let next = try await Self.claim(store, at: 21)
            #expect(next.map(\.eventId) == ["e2"] && next.first?.nextAttemptAt == Self.start.addingTimeInterval(21), "released by e1's delivery")
            let delivered = try #require(try await store.webhookEvent(id: again[0].id))
            #expect(delivered.status == .delivered && delivered.finishedAt == Self.start.addingTimeInterval(21) && delivered.leaseToken == nil)
            #expect(delivered.lastStatus == 204 && delivered.lastError.isEmpty)
            let log = try await store.webhookAttempts(eventRow: delivered.id)
            #expect(log.map(\.outcome) == [.retry, .delivered] && log.map(\.attempt) == [1, 2] && log.map(\.statusCode) == [503, 204])
            // A given-up event no longer holds the subject's later events back.
            #expect(try await store.finishWebhookAttempt(Self.attempt(next[0], .failed, at: 22)))
            #expect(try await store.webhookEvent(id: next[0].id)?.status == .failed)
        }
    }

    @Test("a lease that ends lets another process claim the event; the first claim's late answer changes nothing", arguments: TestStoreBackend.available)
    func leases(backend: TestStoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let store = test.store
            try await store.enqueueWebhookEvents([Self.draft("e1", subject: "list:blocked")])
            let taken = try #require(try await Self.claim(store, at: 0, token: "dead").first)
            #expect(try await Self.claim(store, at: 59, token: "live").isEmpty)
            let retaken = try #require(try await Self.claim(store, at: 60, token: "live").first)
            #expect(retaken.id == taken.id && retaken.attempts == 2 && retaken.leaseToken == "live")
            #expect(try await store.finishWebhookAttempt(Self.attempt(taken, .delivered, at: 61, token: "dead")) == false)
            #expect(try await store.webhookEvent(id: taken.id)?.status == .pending, "the dead claim's answer does not finish the event")
            #expect(try await store.finishWebhookAttempt(Self.attempt(retaken, .delivered, at: 62)))
            #expect(try await store.webhookAttempts(eventRow: taken.id).count == 2, "both attempts are in the delivery log")
        }
    }

    @Test("claims made at once take each event once", arguments: TestStoreBackend.available)
    func concurrentClaims(backend: TestStoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let store = test.store
            try await store.enqueueWebhookEvents((0..<40).map { Self.draft("e\($0)", subject: "key:\($0 % 20)") })
            let claimed = try await withThrowingTaskGroup(of: [WebhookEventRecord].self) { group in
                for claimer in 0..<8 {
                    group.addTask { try await Self.claim(store, at: 1, token: "p\(claimer)", limit: 5) }
                }
                return try await group.reduce(into: []) { $0 += $1 }
            }
            #expect(Set(claimed.map(\.id)).count == claimed.count, "no event is claimed twice")
            #expect(Set(claimed.map(\.subject)).count == claimed.count, "no two events of one subject are out at once")
            #expect(claimed.allSatisfy { Int($0.eventId.dropFirst())! < 20 }, "only the first event of each subject")
        }
    }

    @Test("listing, backlog, redelivery and purge", arguments: TestStoreBackend.available)
    func logAndPurge(backend: TestStoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let store = test.store
            try await store.enqueueWebhookEvents([
                Self.draft("e1", subject: "a"), Self.draft("e2", subject: "b", at: 1), Self.draft("e3", subject: "c", webhook: "ledger", at: 2),
            ])
            let backlog = try await store.webhookBacklog()
            #expect(backlog == [
                WebhookBacklog(webhook: "ledger", pending: 1, oldestCreatedAt: Self.start.addingTimeInterval(2)),
                WebhookBacklog(webhook: "support", pending: 2, oldestCreatedAt: Self.start),
            ])
            let claimed = try await Self.claim(store, at: 5)
            try await store.finishWebhookAttempt(Self.attempt(claimed[0], .delivered, at: 6))
            try await store.finishWebhookAttempt(Self.attempt(claimed[1], .failed, at: 6))
            #expect(try await store.webhookEvents(filter: WebhookEventFilter(), cursor: nil, limit: 10).map(\.eventId) == ["e3", "e2", "e1"])
            #expect(try await store.webhookEvents(filter: WebhookEventFilter(), cursor: nil, limit: 2).map(\.eventId) == ["e3", "e2"])
            #expect(try await store.webhookEvents(filter: WebhookEventFilter(), cursor: claimed[1].id, limit: 2).map(\.eventId) == ["e1"])
            #expect(try await store.webhookEvents(filter: WebhookEventFilter(status: .failed), cursor: nil, limit: 10).map(\.eventId) == ["e2"])
            #expect(try await store.webhookEvents(filter: WebhookEventFilter(webhook: "ledger"), cursor: nil, limit: 10).map(\.eventId) == ["e3"])
            #expect(try await store.webhookEvents(filter: WebhookEventFilter(appId: "other"), cursor: nil, limit: 10).isEmpty)
            let redelivered = try #require(try await store.redeliverWebhookEvent(id: claimed[1].id, now: Self.start.addingTimeInterval(100)))
            #expect(redelivered.status == .pending && redelivered.retrySince == Self.start.addingTimeInterval(100) && redelivered.finishedAt == nil)
            #expect(try await store.redeliverWebhookEvent(id: 999_999, now: Self.start) == nil)
            #expect(try await Self.claim(store, at: 99).map(\.eventId) == ["e3"], "a redelivered event is due from its redelivery; e3's lease ended")
            #expect(try await store.purgeWebhookEvents(finishedBefore: Self.start.addingTimeInterval(6)) == 0)
            #expect(try await store.purgeWebhookEvents(finishedBefore: Self.start.addingTimeInterval(7)) == 1, "the delivered one; the pending stay")
            #expect(try await store.webhookEvent(id: claimed[0].id) == nil)
            #expect(try await store.webhookAttempts(eventRow: claimed[0].id).isEmpty)
        }
    }
}
