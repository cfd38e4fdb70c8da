import AppleServices
import AttestVocabulary
@testable import AttestGuardEngine
import AttestTestSupport
import FakeApple
import Foundation
import RiskRules
import AttestGuardStore
import Testing

/// Apple's DeviceCheck as these tests need it: every device has bit 1 set, and every token is valid.
struct FlaggedDeviceCheck: DeviceChecking {
    func query(deviceToken: String, environment: AppAttestEnvironment) async -> Result<DeviceCheckQueryAnswer, DeviceCheckFailure> {
        .success(.bits(AppleServices.DeviceCheckBits(bit0: false, bit1: true, lastUpdateTime: "2026-11")))
    }

    func update(deviceToken: String, bit0: Bool?, bit1: Bool?, environment: AppAttestEnvironment) async -> Result<Void, DeviceCheckFailure> {
        .success(())
    }

    func validate(deviceToken: String, environment: AppAttestEnvironment) async -> Result<Void, DeviceCheckFailure> {
        .success(())
    }
}

/// The verdicts' daily facts held per process (`factsCache.*`): two engines over one store stand for two server
/// processes, each with its own cache, on one manual clock. A fact a process writes is read by its own verdicts at
/// once; one another process writes, within `factsCache.maxAgeSeconds` (the contract's bound), and not before the
/// fact held has reached that age.
@Suite("Scoring facts held in the process")
struct ScoringFactsCacheTests {
    static let appId = SimulatorFixtures.app.appId
    static let maxAge: TimeInterval = 60
    static let token = Data("device-token".utf8).base64EncodedString()

    /// Reads every cached kind of fact.
    static let rules = DeviceCheckValidationTests.compile("""
        version: 1
        decisions: { review: 50, deny: 80 }
        rules:
          - id: flagged
            when: devicecheck.bit1 or receipt.risk_metric >= 5 or not missing(devicecheck.validated_at) or key.superseded_keys > 0
            score: 60
        """)

    static func engine(_ store: any RiskStore, clock: ManualClock) -> Engine {
        Engine(
            store: store, apps: AppCatalog([AppPolicy(appId: appId, environments: [.development])]),
            settings: EngineSettings(factsCache: ScoringFactsCache.Limits(maxAge: .seconds(Int64(maxAge)), maxEntries: 1_000)),
            clock: clock, deviceCheck: FlaggedDeviceCheck(), rules: RuleSetHolder(rules)
        )
    }

    static func user(_ name: String) throws -> Identifier { try Identifier(name, field: "userId") }

    /// The signals `engine` reads for a request of `user` (and `keyId`).
    static func signals(_ engine: Engine, user: String, keyId: Data? = nil) async throws -> [String: SignalValue?] {
        try await engine.scorer.score(ScoreRequest(appId: appId, keyId: try keyId.map { try KeyId(bytes: $0) }, userId: try Self.user(user))).signals
    }

    static func bit1(_ signals: [String: SignalValue?]) -> SignalValue? { signals[FixedSignal.devicecheckBit1.rawValue] ?? nil }
    static func validatedAt(_ signals: [String: SignalValue?]) -> SignalValue? { signals[FixedSignal.devicecheckValidatedAt.rawValue] ?? nil }
    static func riskMetric(_ signals: [String: SignalValue?]) -> SignalValue? { signals[FixedSignal.receiptRiskMetric.rawValue] ?? nil }

    /// Files Apple's bits for `user` and records a validation, through `engine`'s DeviceCheck service.
    static func fileBitsAndValidate(_ engine: Engine, user: String) async throws {
        let subject = DeviceCheckSubject(kind: .user, value: user)
        _ = try await engine.deviceCheck.query(appId: appId, deviceToken: token, subject: subject, filing: true)
        _ = try await engine.deviceCheck.validateSession(appId: appId, userId: try Self.user(user), deviceToken: token)
    }

    @Test("DeviceCheck bits and validations: this process's writes are read at once, another's within the bound", arguments: TestStoreBackend.available)
    func deviceCheckAcrossProcesses(backend: TestStoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let clock = ManualClock(SimulatorFixtures.now)
            let first = Self.engine(test.store, clock: clock)
            let second = Self.engine(test.store, clock: clock)
            for engine in [first, second] {
                for user in ["alice", "bob"] {
                    let signals = try await Self.signals(engine, user: user)
                    #expect(Self.bit1(signals) == nil && Self.validatedAt(signals) == nil, "nothing filed yet: missing, and held as missing")
                }
            }

            try await Self.fileBitsAndValidate(second, user: "alice")
            let writer = try await Self.signals(second, user: "alice")
            #expect(Self.bit1(writer) == .bool(true) && Self.validatedAt(writer) == .timestamp(SimulatorFixtures.now.timeIntervalSince1970),
                    "the writing process reads its own write at once")
            let other = try await Self.signals(first, user: "alice")
            #expect(Self.bit1(other) == nil && Self.validatedAt(other) == nil, "the other process still holds what it read")

            try await Self.fileBitsAndValidate(first, user: "bob")
            #expect(Self.bit1(try await Self.signals(first, user: "bob")) == .bool(true), "its own write, at once")

            clock.advance(by: Self.maxAge - 1)
            #expect(Self.bit1(try await Self.signals(first, user: "alice")) == nil, "held until the bound")
            clock.advance(by: 1)
            let after = try await Self.signals(first, user: "alice")
            #expect(Self.bit1(after) == .bool(true) && Self.validatedAt(after) == .timestamp(SimulatorFixtures.now.timeIntervalSince1970),
                    "another process's write, read at the bound")
        }
    }

    @Test("a receipt this process's refresher stores is read at once; one the nightly batch stores, within the bound", arguments: TestStoreBackend.available)
    func receiptsAcrossProcesses(backend: TestStoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let start = RefreshHarness.batchAt
            let refreshedHere = try #require(try await ReceiptFleet.register(count: 1, in: test.store, dueAt: start, userPrefix: "here").first)
            let refreshedElsewhere = try #require(try await ReceiptFleet.register(
                count: 1, in: test.store, dueAt: start.addingTimeInterval(30), userPrefix: "elsewhere"
            ).first)
            let clock = ManualClock(start)
            let engine = Self.engine(test.store, clock: clock)
            for member in [refreshedHere, refreshedElsewhere] {
                let signals = try await Self.signals(engine, user: member.userId, keyId: member.keyId)
                #expect(Self.riskMetric(signals) == nil, "an ATTEST receipt has no metric")
            }
            let scenario = FakeAppleScenario(seed: "facts-cache", defaultRiskMetric: 7)

            let here = try await RefreshHarness.withScheduler(store: test.store, clock: clock, scenario: scenario, factsCache: engine.factsCache) {
                _, scheduler in try await scheduler.runBatch()
            }
            #expect(here.redeemed == 1)
            #expect(Self.riskMetric(try await Self.signals(engine, user: refreshedHere.userId, keyId: refreshedHere.keyId)) == .number(7),
                    "refreshed by this process: read at once")

            clock.advance(by: 30)
            let elsewhere = try await RefreshHarness.withScheduler(store: test.store, clock: clock, scenario: scenario) { _, scheduler in
                try await scheduler.runBatch()
            }
            #expect(elsewhere.redeemed == 1)
            #expect(Self.riskMetric(try await Self.signals(engine, user: refreshedElsewhere.userId, keyId: refreshedElsewhere.keyId)) == nil,
                    "refreshed by another process: the metric read 30 s ago is still held")
            clock.advance(by: Self.maxAge - 30)
            #expect(Self.riskMetric(try await Self.signals(engine, user: refreshedElsewhere.userId, keyId: refreshedElsewhere.keyId)) == .number(7),
                    "read again at the bound")
        }
    }

    @Test("with maxAgeSeconds 0 nothing is held: another process's write is read by the next verdict")
    func disabled() async throws {
        try await withTestStore(.sqlite) { (test: TestStore) async throws in
            let clock = ManualClock(SimulatorFixtures.now)
            let apps = AppCatalog([AppPolicy(appId: Self.appId, environments: [.development])])
            let reader = Engine(
                store: test.store, apps: apps, settings: EngineSettings(factsCache: .disabled), clock: clock,
                deviceCheck: FlaggedDeviceCheck(), rules: RuleSetHolder(Self.rules)
            )
            #expect(Self.bit1(try await Self.signals(reader, user: "carol")) == nil)
            try await Self.fileBitsAndValidate(Self.engine(test.store, clock: clock), user: "carol")
            #expect(Self.bit1(try await Self.signals(reader, user: "carol")) == .bool(true))
            #expect(reader.factsCache.entryCounts == (0, 0, 0))
        }
    }

    // MARK: The cache alone

    static let now = SimulatorFixtures.now
    static let keyId = Data(repeating: 7, count: 32)
    static let scopes = [DeviceCheckScope.app(appId), DeviceCheckScope.shared(teamId: "ABCDE12345")]
    static let keySubject = DeviceCheckSubject(kind: .key, value: keyId.base64EncodedString())
    static let device = DeviceCheckSubject(kind: .device, value: "phone")
    static let userSubject = DeviceCheckSubject(kind: .user, value: "alice")

    static func key(environment: AppAttestEnvironment = .production) -> KeyRecord {
        KeyRecord(
            appId: appId, keyId: keyId, userId: "alice", deviceId: "phone", environment: environment, publicKey: Data([4]),
            attestationSHA256: Data(count: 32), osVersion: "18.1", attestedAt: now
        )
    }

    static func bits(_ subject: DeviceCheckSubject, scope: DeviceCheckScope, environment: AppAttestEnvironment = .production) -> DeviceCheckRecord {
        DeviceCheckRecord(
            scope: scope, environment: environment, subject: subject, bit0: true, bit1: false, found: true, lastUpdateTime: "2026-10", observedAt: now
        )
    }

    static func query(subjects: [DeviceCheckSubject], keyId: Data? = keyId) -> ScoringFactsQuery {
        ScoringFactsQuery(
            appId: appId, keyId: keyId, receipt: true, metricBaselineAt: now.addingTimeInterval(-7 * 86_400), supersededKeys: true,
            deviceCheck: DeviceCheckQuery(scopes: scopes, defaultEnvironment: .development, subjects: subjects),
            deviceCheckValidationUserId: "alice"
        )
    }

    static let receipt = ReceiptSummary(receiptType: .receipt, riskMetric: 3, metricStale: false, refreshedAt: now)

    /// A cache that has kept the store's answer to ``query(subjects:keyId:)`` over the key, device and user: the
    /// key in production, the device's bits in the second scope, a validation.
    static func filledCache() -> ScoringFactsCache {
        let cache = ScoringFactsCache(limits: .init(maxAge: .seconds(60), maxEntries: 100))
        var asked = query(subjects: [keySubject, device, userSubject])
        let held = cache.take(from: &asked, at: now)
        #expect(asked == query(subjects: [keySubject, device, userSubject]), "an empty cache answers nothing")
        let stored = ScoringFacts(
            key: key(), receipt: receipt, metricBaseline: 1, supersededKeys: 2, deviceCheck: bits(device, scope: scopes[1]),
            deviceCheckValidation: DeviceCheckValidationRecord(appId: appId, userId: "alice", environment: .production, validatedAt: now)
        )
        cache.keep(stored, asked: asked, held: held, at: now)
        return cache
    }

    @Test("the store's answer is held part by part: DeviceCheck pairs before the winner as having no bits, none after it")
    func heldParts() throws {
        let cache = Self.filledCache()
        #expect(cache.entryCounts == (1, 4, 1), "the key; (key, app), (key, team), (device, app) as none and (device, team); the user")

        var same = Self.query(subjects: [Self.keySubject, Self.device, Self.userSubject])
        let held = cache.take(from: &same, at: Self.now.addingTimeInterval(59))
        #expect(same == ScoringFactsQuery(appId: Self.appId, keyId: Self.keyId), "only the key itself is read again")
        let merged = held.merged(into: ScoringFacts(key: Self.key()))
        #expect(merged.receipt == Self.receipt && merged.metricBaseline == 1 && merged.supersededKeys == 2)
        #expect(merged.deviceCheck == Self.bits(Self.device, scope: Self.scopes[1]))
        #expect(merged.deviceCheckValidation?.userId == "alice")
        #expect(held.merged(into: ScoringFacts()).receipt == nil, "a key not found has no receipt, whatever is held")

        var keyOnly = Self.query(subjects: [Self.keySubject])
        #expect(cache.take(from: &keyOnly, at: Self.now).deviceCheck.map { $0.value == nil } == true, "both of the key's pairs are held as none")
        var userOnly = Self.query(subjects: [Self.userSubject])
        #expect(cache.take(from: &userOnly, at: Self.now).deviceCheck == nil && userOnly.deviceCheck != nil, "the user's pairs came after the winner")
        var otherKey = Self.query(subjects: [Self.device], keyId: Data(repeating: 8, count: 32))
        #expect(cache.take(from: &otherKey, at: Self.now).deviceCheck == nil, "an unheld key's environment is unknown, so its bits are read")
        var keyless = Self.query(subjects: [Self.device], keyId: nil)
        #expect(cache.take(from: &keyless, at: Self.now).deviceCheck == nil, "no key: the default environment (development), not held")

        var expired = Self.query(subjects: [Self.keySubject, Self.device, Self.userSubject])
        _ = cache.take(from: &expired, at: Self.now.addingTimeInterval(60))
        #expect(expired == Self.query(subjects: [Self.keySubject, Self.device, Self.userSubject]), "at maxAge everything is read again")
    }

    @Test("a write by this process drops the fact, and a read begun before it keeps nothing")
    func writesDrop() throws {
        let cache = Self.filledCache()
        cache.keyChanged(appId: Self.appId, keyId: Self.keyId)
        cache.deviceCheckBitsChanged(scope: Self.scopes[1], environment: .production, subject: Self.device)
        cache.deviceCheckValidationChanged(appId: Self.appId, userId: "alice")
        var asked = Self.query(subjects: [Self.keySubject, Self.device])
        let held = cache.take(from: &asked, at: Self.now)
        #expect(asked == Self.query(subjects: [Self.keySubject, Self.device]), "all three dropped")

        cache.keyChanged(appId: Self.appId, keyId: Data(repeating: 9, count: 32))
        cache.keep(ScoringFacts(key: Self.key(), receipt: Self.receipt), asked: asked, held: held, at: Self.now)
        var again = Self.query(subjects: [Self.keySubject, Self.device])
        _ = cache.take(from: &again, at: Self.now)
        #expect(again.receipt, "a read that began before a key's write keeps no key's facts: it may hold what the write replaced")

        cache.deviceCheckBitsPurged()
        #expect(cache.entryCounts.deviceCheck == 0)
    }

    @Test("a write of one kind spoils only that kind's reads in flight; a revocation drops every key's facts")
    func generationsPerKind() throws {
        let cache = ScoringFactsCache(limits: .init(maxAge: .seconds(60), maxEntries: 100))
        var asked = Self.query(subjects: [Self.device])
        let held = cache.take(from: &asked, at: Self.now)
        cache.deviceCheckBitsChanged(scope: Self.scopes[0], environment: .production, subject: Self.userSubject)
        cache.keep(ScoringFacts(key: Self.key(), receipt: Self.receipt), asked: asked, held: held, at: Self.now)
        var again = Self.query(subjects: [Self.device])
        _ = cache.take(from: &again, at: Self.now)
        #expect(!again.receipt && again.deviceCheck != nil, "the key's facts were kept, the DeviceCheck answer was not")

        cache.keyRevoked()
        var afterRevoke = Self.query(subjects: [Self.device])
        _ = cache.take(from: &afterRevoke, at: Self.now)
        #expect(afterRevoke.receipt && cache.entryCounts.keys == 0)
    }

    @Test("a rule set reading only DeviceCheck bits and the key still holds the bits of a key's request")
    func deviceCheckWithoutKeyFacts() {
        let cache = ScoringFactsCache(limits: .init(maxAge: .seconds(60), maxEntries: 100))
        func asked() -> ScoringFactsQuery {
            ScoringFactsQuery(
                appId: Self.appId, keyId: Self.keyId,
                deviceCheck: DeviceCheckQuery(scopes: Self.scopes, defaultEnvironment: .development, subjects: [Self.keySubject])
            )
        }
        var first = asked()
        let held = cache.take(from: &first, at: Self.now)
        #expect(first.deviceCheck != nil)
        cache.keep(ScoringFacts(key: Self.key()), asked: first, held: held, at: Self.now)
        var second = asked()
        #expect(cache.take(from: &second, at: Self.now).deviceCheck.map { $0.value == nil } == true && second.deviceCheck == nil,
                "the key's environment is held with the pairs")
    }

    @Test("each kind holds at most maxEntries; expired entries are the first to go")
    func bounded() {
        var table = ExpiringTable<Int, Int>(capacity: 64)
        for index in 0..<32 { table.insert(index, for: index, expiresAt: Self.now.addingTimeInterval(1), now: Self.now) }
        for index in 32..<64 { table.insert(index, for: index, expiresAt: Self.now.addingTimeInterval(100), now: Self.now) }
        let later = Self.now.addingTimeInterval(2)
        table.insert(64, for: 64, expiresAt: Self.now.addingTimeInterval(100), now: later)
        #expect(table.count == 33 && (32...64).allSatisfy { table.value(for: $0, at: later) == $0 }, "the expired half went, every live entry stayed")
        for index in 65..<10_000 { table.insert(index, for: index, expiresAt: Self.now.addingTimeInterval(100), now: later) }
        #expect(table.count <= 64 && table.value(for: 9_999, at: later) == 9_999)
        #expect(table.value(for: 9_999, at: Self.now.addingTimeInterval(100)) == nil, "not at its expiry")
        var none = ExpiringTable<Int, Int>(capacity: 0)
        none.insert(1, for: 1, expiresAt: later, now: Self.now)
        #expect(none.count == 0)
    }
}
