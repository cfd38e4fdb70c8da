@testable import AttestGuardEngine
import AttestGuardStore
import AttestTestSupport
import AttestVocabulary
import Foundation
import RiskRules
import Testing

/// The engine fills every fixed signal the schema defines: with a key that superseded another and made an
/// assertion, a receipt redeemed twice a week apart, stored DeviceCheck bits, the user's DeviceCheck validation, labels
/// of the key, user and device and a request that names everything, and the app's risk-metric baseline, a rule set that reads every fixed signal sees a value for each.
@Suite("Signal coverage")
struct SignalCoverageTests {
    /// A rule file with one rule per fixed signal, each reading it.
    static let rulesReadingEverySignal: String = {
        let rules = SignalSchema.fixed.enumerated().map { index, definition in
            "  - id: reads-\(index)\n    when: missing(\(definition.name))\n    score: 1"
        }
        return "version: 1\nrules:\n" + rules.joined(separator: "\n") + "\n"
    }()

    @Test("every fixed signal has a value when everything it depends on exists", arguments: ServerBackend.available)
    func everyFixedSignalIsFilled(backend: ServerBackend) async throws {
        try await ServerHarness.run(backend, rules: Self.rulesReadingEverySignal) { api in
            let engine = try #require(api.engine)
            // An older key on the same device, superseded by the one scored.
            _ = try await ScoreRouteTests.attested(api, user: "alice")
            var app = SimulatedApps.make(user: "alice", device: "alice-phone", keyIndex: 1)
            #expect(try await api.attest(app).status == 201)
            let keyId = Data(app.key.keyId).base64EncodedString()
            // Two redemptions eight days apart: a metric now and one a week ago.
            try await ScoreRouteTests.redeem(api, keyId: keyId, metric: 2)
            api.clock.advance(by: 8 * 86_400)
            try await ScoreRouteTests.redeem(api, keyId: keyId, metric: 5)
            #expect(try await api.assert(&app).status == 200)
            // The fraud team's word on the key, the user and the device.
            let labelled = api.clock.now().addingTimeInterval(-3_600)
            _ = try await engine.store.storeLabels([
                FraudLabelRecord(appId: ServerHarness.appId, kind: .key, subject: keyId, source: "chargebacks", label: .fraud, labelledAt: labelled),
                FraudLabelRecord(
                    appId: ServerHarness.appId, kind: .user, subject: engine.settings.velocityKeying.subject(.user, "alice"), source: "support",
                    label: .legitimate, labelledAt: labelled
                ),
                FraudLabelRecord(
                    appId: ServerHarness.appId, kind: .device, subject: engine.settings.velocityKeying.subject(.device, "alice-phone"), source: "support",
                    label: .legitimate, labelledAt: labelled
                ),
            ])
            try await engine.store.storeDeviceCheckBits(DeviceCheckRecord(
                scope: .app(ServerHarness.appId), environment: .development,
                subject: DeviceCheckSubject(kind: .key, value: keyId), bit0: true, bit1: false, found: true,
                lastUpdateTime: "2026-10", observedAt: api.clock.now()
            ))
            try await engine.store.recordDeviceCheckValidation(DeviceCheckValidationRecord(
                appId: ServerHarness.appId, userId: "alice", environment: .production, validatedAt: api.clock.now()
            ))
            // As the DeviceCheck routes of this process do: its verdicts read the new bits and validation at once.
            engine.factsCache.deviceCheckBitsChanged(
                scope: .app(ServerHarness.appId), environment: .development, subject: DeviceCheckSubject(kind: .key, value: keyId)
            )
            engine.factsCache.deviceCheckValidationChanged(appId: ServerHarness.appId, userId: "alice")

            // The app's risk-metric baseline, as the daily job stores it and the server holds it.
            _ = try await engine.store.computeRiskBaseline(
                appId: ServerHarness.appId, day: RiskBaselineJob.day(of: api.clock.now()), at: api.clock.now(), by: "test"
            )
            engine.baselines.replace(with: try await engine.store.latestRiskBaselines())

            var request = ScoreRequest(
                appId: ServerHarness.appId, endpoint: .assertion, keyId: try KeyId(bytes: Data(app.key.keyId)),
                userId: try Identifier("alice", field: "userId"), deviceId: try Identifier("alice-phone", field: "deviceId"), ip: try ClientIP("203.0.113.9", field: "ip"), action: "purchase", attestStatus: "supported",
                binding: .v1, counterJump: 1
            )
            request.validationCategory = .appStore
            request.bundleVersion = "4.2"
            let outcome = try await engine.scorer.score(request)
            #expect(Set(outcome.signals.keys) == Set(FixedSignal.allCases.map(\.rawValue)), "the rule set reads exactly the fixed signals")
            // A debug token stands where a key would: its id is there only without one.
            for signal in FixedSignal.allCases where signal != .keyDebugToken {
                #expect((outcome.signals[signal.rawValue] ?? nil) != nil, "\(signal) is missing")
            }
            #expect(outcome.signals[FixedSignal.keyKind.rawValue] == .string("attested"))
            var debugged = ScoreRequest(appId: ServerHarness.appId, userId: try Identifier("alice", field: "userId"), binding: .debugToken)
            debugged.debugTokenId = "dbg_AAAAAAAAAAAA"
            let debugOutcome = try await engine.scorer.score(debugged)
            #expect(debugOutcome.signals[FixedSignal.keyKind.rawValue] == .string("debug"))
            #expect(debugOutcome.signals[FixedSignal.keyDebugToken.rawValue] == .string("dbg_AAAAAAAAAAAA"))
            #expect((debugOutcome.signals[FixedSignal.keyStatus.rawValue] ?? nil) == nil)
            #expect(outcome.signals[FixedSignal.keySupersededKeys.rawValue] == .number(1))
            #expect(outcome.signals[FixedSignal.receiptRiskMetricChange7d.rawValue] == .number(3))
        }
    }
}
