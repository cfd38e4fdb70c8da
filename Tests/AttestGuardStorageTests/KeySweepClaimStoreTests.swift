import AttestTestSupport
import AttestGuardStore
import Foundation
import Testing

/// The claims that let one process of a fleet sweep a UTC day's keys: held while renewed, taken over once stale or
/// released, never after the day finished, and one owner at a time however many ask at once.
@Suite("Key sweep days in the store")
struct KeySweepClaimStoreTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)
    static let day = "2027-01-15"

    static func at(_ offset: TimeInterval) -> Date { start.addingTimeInterval(offset) }

    @Test("a claim holds while renewed; a stale or released one is taken over; a finished day stays finished", arguments: TestStoreBackend.available)
    func claimRenewTakeOverFinish(backend: TestStoreBackend) async throws {
        try await withTestStore(backend) { test in
            let store = test.store
            let stale: TimeInterval = 600
            func claim(_ owner: String, at offset: TimeInterval, day: String = Self.day) async throws -> KeySweepClaim {
                try await store.claimKeySweepDay(day, owner: owner, at: Self.at(offset), staleBefore: Self.at(offset - stale))
            }
            #expect(try await claim("a", at: 0) == .claimed)
            #expect(try await claim("a", at: 10) == .claimed, "its holder claims it again")
            #expect(try await claim("b", at: 20) == .heldElsewhere)
            #expect(try await store.renewKeySweepDay(Self.day, owner: "a", at: Self.at(500)))
            #expect(try await claim("b", at: 1_000) == .heldElsewhere, "renewed 500 s before: still held")
            #expect(try await claim("b", at: 1_101) == .claimed, "unrenewed for longer than the bound: taken over")
            #expect(try await !store.renewKeySweepDay(Self.day, owner: "a", at: Self.at(1_102)), "the old holder no longer holds it")
            try await store.finishKeySweepDay(Self.day, owner: "a", at: Self.at(1_103))
            try await store.releaseKeySweepDay(Self.day, owner: "a")
            #expect(try await store.renewKeySweepDay(Self.day, owner: "b", at: Self.at(1_104)), "a former holder's finish and release change nothing")
            try await store.releaseKeySweepDay(Self.day, owner: "b")
            #expect(try await claim("c", at: 1_105) == .claimed, "a released claim is taken at once")
            try await store.finishKeySweepDay(Self.day, owner: "c", at: Self.at(1_200))
            #expect(try await claim("d", at: 90_000) == .finished, "a finished day is never claimed again")
            #expect(try await claim("c", at: 90_000) == .finished)
            #expect(try await !store.renewKeySweepDay(Self.day, owner: "c", at: Self.at(90_001)))
            try await store.releaseKeySweepDay(Self.day, owner: "c")
            #expect(try await claim("d", at: 90_002) == .finished, "releasing a finished day reopens nothing")
            #expect(try await claim("d", at: 90_000, day: "2027-01-16") == .claimed, "the next day is free")
        }
    }

    @Test("eight processes claiming a day at once: one holds it", arguments: TestStoreBackend.available)
    func oneOfManyClaims(backend: TestStoreBackend) async throws {
        try await withTestStore(backend) { test in
            let store = test.store
            let claims = try await withThrowingTaskGroup(of: KeySweepClaim.self) { group in
                for owner in 0..<8 {
                    group.addTask { try await store.claimKeySweepDay(Self.day, owner: "p\(owner)", at: Self.start, staleBefore: Self.at(-600)) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(claims.filter { $0 == .claimed }.count == 1)
            #expect(claims.filter { $0 == .heldElsewhere }.count == 7)
        }
    }
}
