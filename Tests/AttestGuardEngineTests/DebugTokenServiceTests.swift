@testable import AttestGuardEngine
import AttestGuardStore
import AttestTestSupport
import AttestVocabulary
import Foundation
import Synchronization
import Testing

/// Debug tokens in the engine: the secret's shape, the lifetimes an app allows, admission by app, and the uses
/// counted in memory and written behind the requests without losing any to a failed write.
@Suite("Debug token service")
struct DebugTokenServiceTests {
    static let appId = "TEAMID1234.com.example.debug"
    static let otherAppId = "TEAMID1234.com.example.other"

    static func engine(_ store: any RiskStore, clock: ManualClock, maximumDays: Int = 30, otherMaximumDays: Int = 30) -> Engine {
        let apps = AppCatalog([
            AppPolicy(appId: appId, environments: [.development], debugTokens: DebugTokenPolicy(maximumLifetime: TimeInterval(maximumDays) * 86_400)),
            AppPolicy(
                appId: otherAppId, environments: [.development], debugTokens: DebugTokenPolicy(maximumLifetime: TimeInterval(otherMaximumDays) * 86_400)
            ),
            AppPolicy(appId: "TEAMID1234.com.example.plain", environments: [.development]),
        ])
        return Engine(store: store, apps: apps, settings: EngineSettings(), clock: clock)
    }

    @Test("a secret is agdt_ and 32 random bytes, an id dbg_ and 9; only the secret's shape is ever hashed")
    func shapes() throws {
        let (secret, id) = DebugTokenSecret.make()
        #expect(secret.hasPrefix("agdt_") && secret.utf8.count == 48)
        #expect(DebugTokenSecret.isId(id) && !DebugTokenSecret.isId(secret) && !DebugTokenSecret.isId("dbg_"))
        #expect(DebugTokenSecret.digest(of: secret)?.count == 32)
        #expect(DebugTokenSecret.digest(of: String(secret.dropLast())) == nil)
        #expect(DebugTokenSecret.digest(of: "agdt_" + String(repeating: "!", count: 43)) == nil)
        #expect(DebugTokenSecret.make().secret != secret)
    }

    @Test("lifetimes run from one day to the app's maximum; the default is a week or that maximum; other apps' tokens do not pass")
    func lifetimesAndApps() async throws {
        try await withTestStore(.sqlite) { (test: TestStore) async throws in
            let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))
            let engine = Self.engine(test.store, clock: clock, maximumDays: 3)
            let name = try Identifier("ci-runner", field: "name")
            let short = try await engine.debugTokens.create(appId: Self.appId, name: name, lifetimeDays: nil, createdBy: "test")
            #expect(short.token.expiresAt == clock.now().addingTimeInterval(3 * 86_400))
            let other = try await engine.debugTokens.create(appId: Self.otherAppId, name: name, lifetimeDays: nil, createdBy: "test")
            #expect(other.token.expiresAt == clock.now().addingTimeInterval(7 * 86_400))
            for days in [0, 4] {
                let refused = await #expect(throws: EngineError.self) {
                    try await engine.debugTokens.create(appId: Self.appId, name: name, lifetimeDays: days, createdBy: "test")
                }
                #expect(refused?.code == .invalidField)
            }
            let plain = await #expect(throws: EngineError.self) {
                try await engine.debugTokens.create(appId: "TEAMID1234.com.example.plain", name: name, lifetimeDays: 1, createdBy: "test")
            }
            #expect(plain?.code == .debugTokensNotEnabled)

            guard case .valid = try await engine.debugTokens.admit(short.secret, appId: Self.appId) else { Issue.record("refused"); return }
            guard case .invalid(.unknown) = try await engine.debugTokens.admit(other.secret, appId: Self.appId) else { Issue.record("passed"); return }
            guard case .invalid(.notAccepted) = try await engine.debugTokens.admit(short.secret, appId: "TEAMID1234.com.example.plain") else {
                Issue.record("passed")
                return
            }
            clock.advance(by: 3 * 86_400)
            guard case .invalid(.expired) = try await engine.debugTokens.admit(short.secret, appId: Self.appId) else { Issue.record("passed"); return }
            // A lowered maximum shortens the tokens made before it.
            let long = try await engine.debugTokens.create(appId: Self.otherAppId, name: name, lifetimeDays: 20, createdBy: "test")
            clock.advance(by: 2 * 86_400)
            guard case .valid = try await engine.debugTokens.admit(long.secret, appId: Self.otherAppId) else { Issue.record("refused"); return }
            let lowered = Self.engine(test.store, clock: clock, maximumDays: 3, otherMaximumDays: 1)
            guard case .invalid(.expired) = try await lowered.debugTokens.admit(long.secret, appId: Self.otherAppId) else {
                Issue.record("a token longer than the app's maximum passed")
                return
            }
            // Only the admitted use counts.
            try await engine.debugTokens.uses.flush()
            let listed = try await engine.debugTokens.list(appId: Self.appId)
            #expect(listed.map(\.uses) == [1])
        }
    }

    /// Runs `body` with a SQLite store holding one token of ``appId``, made at the clock's fixed instant.
    static func withMadeToken(_ body: @escaping (TestStore, ManualClock, DebugTokenService.Created) async throws -> Void) async throws {
        try await withTestStore(.sqlite) { (test: TestStore) async throws in
            let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))
            let engine = Self.engine(test.store, clock: clock)
            let made = try await engine.debugTokens.create(appId: Self.appId, name: try Identifier("a", field: "name"), lifetimeDays: 1, createdBy: "t")
            try await body(test, clock, made)
        }
    }

    /// Passes every call to the store under it; a listing and a write of uses go through hooks first, which the
    /// tests below use to hold or fail a write and to see what was read meanwhile.
    final class HookedUseStore: DebugTokenStore {
        typealias WriteUses = @Sendable (_ uses: [DebugTokenUse], _ write: @Sendable ([DebugTokenUse]) async throws -> Void) async throws -> Void
        let base: any DebugTokenStore
        let beforeListing: @Sendable () -> Void
        let writingUses: WriteUses
        init(_ base: any DebugTokenStore, beforeListing: @escaping @Sendable () -> Void = {}, writingUses: @escaping WriteUses) {
            self.base = base
            self.beforeListing = beforeListing
            self.writingUses = writingUses
        }
        func createDebugToken(_ token: DebugTokenRecord) async throws -> Bool { try await base.createDebugToken(token) }
        func debugTokens(appId: String, limit: Int) async throws -> [DebugTokenRecord] {
            beforeListing()
            return try await base.debugTokens(appId: appId, limit: limit)
        }
        func debugToken(secretSha256: Data) async throws -> DebugTokenRecord? { try await base.debugToken(secretSha256: secretSha256) }
        func revokeDebugToken(appId: String, id: String, at: Date) async throws -> DebugTokenRecord? {
            try await base.revokeDebugToken(appId: appId, id: id, at: at)
        }
        func addDebugTokenUses(_ uses: [DebugTokenUse]) async throws {
            let base = self.base
            try await writingUses(uses) { try await base.addDebugTokenUses($0) }
        }
    }

    /// Answers `true` to its first ``take()`` only.
    final class FirstCall: Sendable {
        private let first = Atomic(true)
        func take() -> Bool { first.exchange(false, ordering: .relaxed) }
    }

    /// Holds a write of uses until ``release()``, and notes whether tokens were listed while it was held.
    final class UseWriteHold: Sendable {
        private let state = Mutex<(holding: Bool, readWhileHeld: Bool, release: CheckedContinuation<Void, Never>?)>((false, false, nil))
        private let entered: AsyncStream<Void>
        private let enteredContinuation: AsyncStream<Void>.Continuation
        init() { (entered, enteredContinuation) = AsyncStream.makeStream() }
        var readWhileHeld: Bool { state.withLock { $0.readWhileHeld } }
        /// Returns once a write of uses is held.
        func writeHeld() async { for await _ in entered { return } }
        func release() {
            let waiting = state.withLock { state in
                defer { state.release = nil }
                return state.release
            }
            waiting?.resume()
        }
        /// A store over `base` whose writes of uses this holds.
        func store(over base: any DebugTokenStore) -> HookedUseStore {
            HookedUseStore(base, beforeListing: { self.state.withLock { if $0.holding { $0.readWhileHeld = true } } }) { uses, write in
                await withCheckedContinuation { (release: CheckedContinuation<Void, Never>) in
                    self.state.withLock { $0 = (true, $0.readWhileHeld, release) }
                    self.enteredContinuation.yield()
                }
                try await write(uses)
                self.state.withLock { $0.holding = false }
            }
        }
    }

    @Test("a listing beside a flush whose write has not committed reads after it: every use shows, once")
    func listingBesideAFlush() async throws {
        try await Self.withMadeToken { test, clock, made in
            let hold = UseWriteHold()
            let store = hold.store(over: test.store)
            let recorder = DebugTokenUseRecorder(store: store)
            recorder.note(id: made.token.id, at: clock.now())
            recorder.note(id: made.token.id, at: clock.now())
            // The flush has taken the uses out of memory and holds its write: a read now would find them nowhere.
            let flush = Task { try await recorder.flush() }
            await hold.writeHeld()
            let listing = Task {
                try await recorder.betweenFlushes { try await store.debugTokens(appId: Self.appId, limit: 5).map(recorder.addingPending) }
            }
            // Room for the listing to run as far as it may while the write is held (nothing is timed).
            for _ in 0..<200 { await Task.yield() }
            hold.release()
            try await flush.value
            let listed = try await listing.value
            #expect(!hold.readWhileHeld)
            #expect(listed.map(\.uses) == [2])
        }
    }

    @Test("a failed write of uses keeps them, merged with the uses counted since, for the next")
    func usesSurviveAFailedWrite() async throws {
        try await Self.withMadeToken { test, clock, made in
            // The first write of uses fails; the next ones reach the store.
            let firstWrite = FirstCall()
            let flaky = HookedUseStore(test.store) { uses, write in
                if firstWrite.take() { throw StoreError(.unavailable, "injected") }
                try await write(uses)
            }
            let recorder = DebugTokenUseRecorder(store: flaky)
            recorder.note(id: made.token.id, at: clock.now())
            recorder.note(id: made.token.id, at: clock.now().addingTimeInterval(5))
            await #expect(throws: StoreError.self) { try await recorder.flush() }
            recorder.note(id: made.token.id, at: clock.now().addingTimeInterval(2))
            #expect(recorder.addingPending(made.token).uses == 3)
            try await recorder.flush()
            #expect(recorder.dropPending() == 0)
            let stored = try #require(try await test.store.debugTokens(appId: Self.appId, limit: 5).first)
            #expect(stored.uses == 3)
            #expect(stored.lastUsedAt == clock.now().addingTimeInterval(5))
        }
    }
}
