import AppleServices
@testable import AttestGuardEngine
import AttestGuardStore
import AttestTestSupport
import AttestVocabulary
import Foundation
import RiskRules
import Synchronization
import Testing

/// DeviceCheck as Apple keeps it, per device token, in memory: the bits each query answers and every update asked
/// for; updates fail while `refusing`.
final class RememberingDeviceCheck: DeviceChecking {
    let bits = Mutex<[String: AppleServices.DeviceCheckBits]>([:])
    let updates = Mutex<[(token: String, bit0: Bool?, bit1: Bool?)]>([])
    let refusing = Atomic<Bool>(false)

    func query(deviceToken: String, environment: AppAttestEnvironment) async -> Result<DeviceCheckQueryAnswer, DeviceCheckFailure> {
        .success(bits.withLock { $0[deviceToken] }.map { .bits($0) } ?? .notFound)
    }

    func update(deviceToken: String, bit0: Bool?, bit1: Bool?, environment: AppAttestEnvironment) async -> Result<Void, DeviceCheckFailure> {
        guard !refusing.load(ordering: .relaxed) else { return .failure(DeviceCheckFailure(.serverError, status: 503, detail: "Apple is down")) }
        updates.withLock { $0.append((deviceToken, bit0, bit1)) }
        bits.withLock { bits in
            var current = bits[deviceToken] ?? AppleServices.DeviceCheckBits(bit0: false, bit1: false, lastUpdateTime: "2027-01")
            if let bit0 { current.bit0 = bit0 }
            if let bit1 { current.bit1 = bit1 }
            bits[deviceToken] = current
        }
        return .success(())
    }

    func validate(deviceToken: String, environment: AppAttestEnvironment) async -> Result<Void, DeviceCheckFailure> { .success(()) }
}

/// `then: set_devicecheck_bit1`: filed at once under the request's subjects, so that the next verdict reads it, and
/// sent to Apple with the next device token presented for one of them.
@Suite("A rule's DeviceCheck bit 1")
struct RuleDeviceCheckFlagTests {
    static let appId = SimulatorFixtures.app.appId
    static let start = Date(timeIntervalSince1970: 1_800_000_000)
    static let rules: RuleSet = {
        let yaml = """
            version: 1
            rules:
              - id: farm
                when: request.action == "farm"
                then: set_devicecheck_bit1
              - id: device-flagged
                when: devicecheck.bit1
                score: 50
            """
        do { return try RuleSetLoader.compile(documents: [("a.yaml", yaml)]) { _ in "" } } catch { preconditionFailure("\(error)") }
    }()

    static func token(_ device: String) -> String { Data(device.utf8).base64EncodedString() }

    @Test("the bit is read at once, goes to Apple with the next token for the subject, and survives a query before that", arguments: TestStoreBackend.available)
    func flag(backend: TestStoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let clock = ManualClock(Self.start)
            let apple = RememberingDeviceCheck()
            let engine = Engine(
                store: test.store, apps: AppCatalog([AppPolicy(appId: Self.appId, environments: [.development])]), settings: EngineSettings(),
                clock: clock, deviceCheck: apple, rules: RuleSetHolder(Self.rules)
            )
            let keyId = try await ReceiptFleet.register(count: 1, in: test.store, at: Self.start, placeholderReceipts: true, parallelism: 1)[0].keyId
            let key = try KeyId(bytes: keyId)
            let user = try Identifier("mallory", field: "userId")
            let farm = ScoreRequest(appId: Self.appId, keyId: key, userId: user, action: "farm")
            #expect(try await engine.scorer.score(farm).evaluation.fired.map(\.id) == ["farm"])
            #expect(try await engine.ruleActions.run() == 1)
            #expect(apple.updates.withLock { $0.isEmpty }, "no token yet: nothing goes to Apple")
            let next = try await engine.scorer.score(ScoreRequest(appId: Self.appId, keyId: key, userId: user, action: "buy"))
            #expect(next.evaluation.fired.map(\.id) == ["device-flagged"], "the next verdict reads the bit")
            let runs = try await engine.ruleActions.runs(appId: Self.appId, limit: 5)
            #expect(runs.map { "\($0.claim.action) \($0.outcome)" } == ["set_devicecheck_bit1 done"])

            // Apple is down: a query that files its answer keeps the rule's bit, and the mark stays.
            let keySubject = DeviceCheckSubject(kind: .key, value: key.base64)
            apple.refusing.store(true, ordering: .relaxed)
            let keptWhileDown = try await engine.deviceCheck.query(appId: Self.appId, deviceToken: Self.token("phone"), subject: keySubject, filing: true)
            #expect(keptWhileDown.bit1 == true)
            let scope = DeviceCheckScope.app(Self.appId)
            #expect(try await test.store.deviceCheckBit1Pending(scope: scope, environment: .development, subject: keySubject) != nil)

            // Apple is back: the next query with the key's token sends the bit and clears the mark.
            apple.refusing.store(false, ordering: .relaxed)
            let sent = try await engine.deviceCheck.query(appId: Self.appId, deviceToken: Self.token("phone"), subject: keySubject, filing: true)
            #expect(sent.bit1 == true && sent.found)
            #expect(apple.updates.withLock { $0.map { "\($0.token) \(String(describing: $0.bit0)) \(String(describing: $0.bit1))" } } == ["\(Self.token("phone")) nil Optional(true)"])
            #expect(try await test.store.deviceCheckBit1Pending(scope: scope, environment: .development, subject: keySubject) == nil)

            // The user's session validation carries the user's mark.
            let userSubject = DeviceCheckSubject(kind: .user, value: "mallory")
            #expect(try await test.store.deviceCheckBit1Pending(scope: scope, environment: .development, subject: userSubject) != nil)
            _ = try await engine.deviceCheck.validateSession(appId: Self.appId, userId: user, deviceToken: Self.token("tablet"))
            #expect(apple.bits.withLock { $0[Self.token("tablet")]?.bit1 } == true)
            #expect(try await test.store.deviceCheckBit1Pending(scope: scope, environment: .development, subject: userSubject) == nil)

            // Flagged again a day later: the bits are set already.
            clock.advance(by: 86_401)
            _ = try await engine.scorer.score(farm)
            #expect(try await engine.ruleActions.run() == 1)
            #expect(try await engine.ruleActions.runs(appId: Self.appId, limit: 5).map { "\($0.outcome)" } == ["unchanged"])
        }
    }

    @Test("an update that clears bit 1 overrides the rule; one of bit 0 alone carries the rule's bit")
    func updates() async throws {
        try await withTestStore(.sqlite) { (test: TestStore) async throws in
            let apple = RememberingDeviceCheck()
            let engine = Engine(
                store: test.store, apps: AppCatalog([AppPolicy(appId: Self.appId, environments: [.development])]), settings: EngineSettings(),
                clock: ManualClock(Self.start), deviceCheck: apple, rules: RuleSetHolder(Self.rules)
            )
            let user = DeviceCheckSubject(kind: .user, value: "mallory")
            let device = DeviceCheckSubject(kind: .device, value: "d-1")
            _ = try await engine.deviceCheck.flagBit1(appId: Self.appId, subjects: [user, device], ruleId: "farm")
            let carried = try await engine.deviceCheck.update(appId: Self.appId, deviceToken: Self.token("phone"), subject: user, bit0: true, bit1: nil)
            #expect(carried.bit0 == true && carried.bit1 == true)
            #expect(apple.bits.withLock { $0[Self.token("phone")]?.bit1 } == true)
            let cleared = try await engine.deviceCheck.update(appId: Self.appId, deviceToken: Self.token("tablet"), subject: device, bit0: nil, bit1: false)
            #expect(cleared.bit1 == false)
            let scope = DeviceCheckScope.app(Self.appId)
            for subject in [user, device] {
                #expect(try await test.store.deviceCheckBit1Pending(scope: scope, environment: .development, subject: subject) == nil)
            }
        }
    }
}
