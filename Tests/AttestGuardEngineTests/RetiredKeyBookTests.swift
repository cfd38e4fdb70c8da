import AttestGuardEngine
import AttestGuardStore
import AttestTestSupport
import AttestVocabulary
import Foundation
import Testing

/// The retired-key set a `token` route reads: the store pages the retired keys in order, a refresh reads what other
/// processes retired since a little before the last one, and keys older than the horizon are dropped.
@Suite("Session tokens: retired keys")
struct RetiredKeyBookTests {
    static let app = SimulatorFixtures.app.appId

    @Test("the store pages retired keys in (instant, app, key) order; active keys are never listed", arguments: TestStoreBackend.available)
    func paging(backend: TestStoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let fleet = try await ReceiptFleet.register(count: 6, in: test.store, placeholderReceipts: true)
            let start = SimulatorFixtures.now
            for (index, member) in fleet.prefix(5).enumerated() {
                // Two keys retired at the same instant: the key id orders them.
                _ = try await test.store.revokeKey(appId: Self.app, keyId: member.keyId, at: start.addingTimeInterval(Double(min(index, 3))))
            }
            let all = try await test.store.retiredKeys(after: RetiredKey.Cursor(from: start), limit: 100)
            #expect(all.count == 5)
            #expect(all.allSatisfy { $0.status == .revoked && $0.appId == Self.app })
            #expect(!all.contains { $0.keyId == fleet[5].keyId })
            for (earlier, later) in zip(all, all.dropFirst()) {
                #expect(earlier.changedAt < later.changedAt || (earlier.changedAt == later.changedAt && earlier.keyId.lexicographicallyPrecedes(later.keyId)))
            }
            var paged: [RetiredKey] = []
            var cursor = RetiredKey.Cursor(from: start)
            while true {
                let page = try await test.store.retiredKeys(after: cursor, limit: 2)
                paged += page
                guard let last = page.last, page.count == 2 else { break }
                cursor = last.cursor
            }
            #expect(paged == all)
            #expect(try await test.store.retiredKeys(after: RetiredKey.Cursor(from: start.addingTimeInterval(3.5)), limit: 100).isEmpty)
        }
    }

    @Test("another process's retirement is held after one refresh; its own at once; keys past the horizon are dropped",
          arguments: TestStoreBackend.available)
    func refresh(backend: TestStoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let fleet = try await ReceiptFleet.register(count: 3, in: test.store, placeholderReceipts: true)
            let clock = ManualClock(SimulatorFixtures.now)
            let book = RetiredKeyBook(horizon: 600)
            #expect(try await book.refresh(from: test.store, now: clock.now()) == 0)

            // Retired through another process: not held until this one's next refresh.
            _ = try await test.store.revokeKey(appId: Self.app, keyId: fleet[0].keyId, at: clock.now())
            #expect(book.retirement(appId: Self.app, keyId: fleet[0].keyId) == nil)
            clock.advance(by: 10)
            #expect(try await book.refresh(from: test.store, now: clock.now()) == 1)
            #expect(book.retirement(appId: Self.app, keyId: fleet[0].keyId) == .revoked)

            // Stamped by a process whose clock runs 30 s behind, committed after the last refresh: still read.
            _ = try await test.store.revokeKey(appId: Self.app, keyId: fleet[1].keyId, at: clock.now().addingTimeInterval(-30))
            clock.advance(by: 10)
            try await book.refresh(from: test.store, now: clock.now())
            #expect(book.retirement(appId: Self.app, keyId: fleet[1].keyId) == .revoked)

            // This process's own retirement is held at once.
            book.note([RetiredKey(appId: Self.app, keyId: fleet[2].keyId, status: .superseded, changedAt: clock.now())])
            #expect(book.retirement(appId: Self.app, keyId: fleet[2].keyId) == .superseded)
            #expect(book.retirement(appId: "ABCDE12345.com.example.other", keyId: fleet[2].keyId) == nil)

            // Past the horizon every token of a key has expired: the key is no longer held.
            clock.advance(by: 600 - 20 + 1)
            try await book.refresh(from: test.store, now: clock.now())
            #expect(book.retirement(appId: Self.app, keyId: fleet[0].keyId) == nil)
            #expect(book.retirement(appId: Self.app, keyId: fleet[2].keyId) != nil)
            #expect(book.count == 1)
        }
    }

    @Test("a revocation is held over a supersession whatever their instants; the set is current only once read")
    func revocationWins() async throws {
        try await withTestStore(.sqlite) { (test: TestStore) async throws in
            let keyId = Data(repeating: 7, count: 32)
            let now = SimulatorFixtures.now
            let book = RetiredKeyBook(horizon: 600)
            #expect(!book.isCurrent, "never read")
            book.note([RetiredKey(appId: Self.app, keyId: keyId, status: .superseded, changedAt: now)])
            // Revoked through a process whose clock runs behind: still final.
            book.note([RetiredKey(appId: Self.app, keyId: keyId, status: .revoked, changedAt: now.addingTimeInterval(-30))])
            #expect(book.retirement(appId: Self.app, keyId: keyId) == .revoked)
            book.note([RetiredKey(appId: Self.app, keyId: keyId, status: .superseded, changedAt: now.addingTimeInterval(30))])
            #expect(book.retirement(appId: Self.app, keyId: keyId) == .revoked)

            try await book.refresh(from: test.store, now: now)
            #expect(book.isCurrent)
            let strict = RetiredKeyBook(horizon: 600, staleAfter: .zero)
            try await strict.refresh(from: test.store, now: now)
            #expect(!strict.isCurrent, "older than staleAfter")
            #expect(RetiredKeyBook(horizon: 0).isCurrent, "nothing to read")
        }
    }

    @Test("a book for a server without token apps holds nothing and reads nothing")
    func disabled() async throws {
        try await withTestStore(.sqlite) { (test: TestStore) async throws in
            let fleet = try await ReceiptFleet.register(count: 1, in: test.store, placeholderReceipts: true)
            _ = try await test.store.revokeKey(appId: Self.app, keyId: fleet[0].keyId, at: SimulatorFixtures.now)
            let book = RetiredKeyBook(horizon: 0)
            #expect(try await book.refresh(from: test.store, now: SimulatorFixtures.now) == 0)
            book.note([RetiredKey(appId: Self.app, keyId: fleet[0].keyId, status: .revoked, changedAt: SimulatorFixtures.now)])
            #expect(book.count == 0)
        }
    }
}
