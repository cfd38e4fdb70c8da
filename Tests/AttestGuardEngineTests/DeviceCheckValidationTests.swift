import AppleServices
import AttestVocabulary
@testable import AttestGuardEngine
import AttestTestSupport
import Foundation
import RiskRules
import AttestGuardStore
import Synchronization
import Testing

/// Apple's `validate_device_token` as a test sets it: valid, or the failure it chooses; the environments asked in.
final class StubDeviceCheck: DeviceChecking {
    let failure = Mutex<DeviceCheckFailure?>(nil)
    let asked = Mutex<[AppAttestEnvironment]>([])

    func query(deviceToken: String, environment: AppAttestEnvironment) async -> Result<DeviceCheckQueryAnswer, DeviceCheckFailure> {
        .failure(DeviceCheckFailure(.unexpectedResponse, detail: "not used here"))
    }

    func update(deviceToken: String, bit0: Bool?, bit1: Bool?, environment: AppAttestEnvironment) async -> Result<Void, DeviceCheckFailure> {
        .failure(DeviceCheckFailure(.unexpectedResponse, detail: "not used here"))
    }

    func validate(deviceToken: String, environment: AppAttestEnvironment) async -> Result<Void, DeviceCheckFailure> {
        asked.withLock { $0.append(environment) }
        return failure.withLock { $0 }.map { .failure($0) } ?? .success(())
    }
}

/// A user's DeviceCheck validation: recorded only when Apple accepts the token, and read by rules as
/// `devicecheck.validated_at` / `devicecheck.validated_age` without calling Apple.
@Suite("DeviceCheck validations")
struct DeviceCheckValidationTests {
    static let appId = "ABCDE12345.com.example.attestguard"
    static let start = Date(timeIntervalSince1970: 1_767_225_600)
    static let token = Data("device-token".utf8).base64EncodedString()

    static func compile(_ yaml: String) -> RuleSet {
        do { return try RuleSetLoader.compile(documents: [("v.yaml", yaml)]) { _ in "" } } catch { preconditionFailure("\(error)") }
    }

    /// A rule set that reviews users whose device has not validated in the last day.
    static let rules = compile("""
        version: 1
        decisions: { review: 50, deny: 80 }
        rules:
          - id: device-not-validated
            when: missing(devicecheck.validated_at) or devicecheck.validated_age > 1d
            score: 60
        """)

    static func engine(_ store: any RiskStore, clock: ManualClock, apple: (any DeviceChecking)?) -> Engine {
        Engine(
            store: store, apps: AppCatalog([AppPolicy(appId: appId, environments: [.development])]), settings: EngineSettings(),
            clock: clock, deviceCheck: apple, rules: RuleSetHolder(rules)
        )
    }

    static func score(_ engine: Engine, user: String) async throws -> RiskScorer.Outcome {
        try await engine.scorer.score(ScoreRequest(appId: appId, userId: try Identifier(user, field: "userId")))
    }

    static func age(_ outcome: RiskScorer.Outcome) -> SignalValue? {
        outcome.signals[FixedSignal.devicecheckValidatedAge.rawValue] ?? nil
    }

    @Test("a rule reading devicecheck.validated_age sees it once the user's device validated, missing before", arguments: TestStoreBackend.available)
    func validatedAge(backend: TestStoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let clock = ManualClock(Self.start)
            let apple = StubDeviceCheck()
            let engine = Self.engine(test.store, clock: clock, apple: apple)
            let before = try await Self.score(engine, user: "alice")
            #expect(before.signals.keys.contains(FixedSignal.devicecheckValidatedAge.rawValue) && Self.age(before) == nil, "read, and missing")
            #expect(before.evaluation.fired.map(\.id) == ["device-not-validated"])

            let validation = try await engine.deviceCheck.validateSession(appId: Self.appId, userId: try Identifier("alice", field: "userId"), deviceToken: Self.token)
            #expect(validation.validatedAt == Self.start && validation.environment == .development)
            #expect(apple.asked.withLock { $0 } == [.development], "the app's environment, as DeviceCheckService chooses it")
            clock.advance(by: 90)
            let after = try await Self.score(engine, user: "alice")
            #expect(Self.age(after) == .duration(90))
            #expect((after.signals[FixedSignal.devicecheckValidatedAt.rawValue] ?? nil) == .timestamp(Self.start.timeIntervalSince1970))
            #expect(after.evaluation.fired.isEmpty)
            #expect(Self.age(try await Self.score(engine, user: "bob")) == nil, "another user's device has not validated")

            clock.advance(by: 2 * 86_400)
            #expect(try await Self.score(engine, user: "alice").evaluation.fired.map(\.id) == ["device-not-validated"], "a stale validation")
            _ = try await engine.deviceCheck.validateSession(appId: Self.appId, userId: try Identifier("alice", field: "userId"), deviceToken: Self.token)
            #expect(Self.age(try await Self.score(engine, user: "alice")) == .duration(0), "the next session's validation replaces it")
        }
    }

    @Test("a refused, malformed or unaskable token records nothing; only a valid one reaches the store")
    func refusals() async throws {
        try await withTestStore(.sqlite) { (test: TestStore) async throws in
            let clock = ManualClock(Self.start)
            let apple = StubDeviceCheck()
            let engine = Self.engine(test.store, clock: clock, apple: apple)
            let alice = try Identifier("alice", field: "userId")
            apple.failure.withLock { $0 = DeviceCheckFailure(.badRequest, status: 400, detail: "Missing or incorrectly formatted device token payload") }
            let refused = await #expect(throws: EngineError.self) {
                try await engine.deviceCheck.validateSession(appId: Self.appId, userId: alice, deviceToken: Self.token)
            }
            #expect(refused?.code == .devicecheckBadRequest)
            let malformed = await #expect(throws: EngineError.self) {
                try await engine.deviceCheck.validateSession(appId: Self.appId, userId: alice, deviceToken: "not base64!")
            }
            #expect(malformed?.code == .malformedBase64)
            #expect(apple.asked.withLock { $0.count } == 1, "a malformed token never reaches Apple")
            let unconfigured = await #expect(throws: EngineError.self) {
                try await Self.engine(test.store, clock: clock, apple: nil).deviceCheck.validateSession(appId: Self.appId, userId: alice, deviceToken: Self.token)
            }
            #expect(unconfigured?.code == .devicecheckUnavailable)
            #expect(try await test.store.deviceCheckValidation(appId: Self.appId, userId: "alice") == nil)
            #expect(Self.age(try await Self.score(engine, user: "alice")) == nil)
        }
    }

    @Test("rules reading only the bits ask for no validation, and rules reading only validations ask for no bits")
    func readOnlyWhatRulesRead() {
        let bits = AssemblyPlan(Self.compile("""
            version: 1
            rules:
              - id: flagged
                when: devicecheck.bit1 and devicecheck.age < 30d
                score: 10
            """).layout)
        #expect(bits.deviceCheck && !bits.deviceCheckValidation)
        let validations = AssemblyPlan(Self.rules.layout)
        #expect(validations.deviceCheckValidation && !validations.deviceCheck && !validations.key)
    }
}
