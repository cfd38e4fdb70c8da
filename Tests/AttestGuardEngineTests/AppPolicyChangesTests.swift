@testable import AttestGuardEngine
import AttestGuardStore
import AttestGuardWire
import AttestTestSupport
import AttestVocabulary
import Foundation
import Logging
import Testing

/// Run-time policy changes as an engine service: the revision compare-and-swap, the change in force at once, the
/// ramp's resume and what an operator reads of it.
@Suite("Apps: run-time policy changes")
struct AppPolicyChangesTests {
    static let shop = "ABCDE12345.com.example.shop"
    static let ramped = "ABCDE12345.com.example.ramped"
    static let start = Date(timeIntervalSince1970: 1_800_000_000)
    static let logger = Logger(label: "test.apps")

    static func catalog() -> AppCatalog {
        AppCatalog([
            AppPolicy(appId: shop, attestationRequiredPercent: 10),
            AppPolicy(appId: ramped, attestationRamp: AttestationRamp(startPercent: 5, period: 3_600)),
        ])
    }

    @Test("a change is stored on the next revision and in force at once; clearing keeps the row and its revision", arguments: TestStoreBackend.available)
    func replaceAndClear(backend: TestStoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let apps = Self.catalog()
            let changes = AppPolicyChanges(store: test.store, apps: apps, clock: ManualClock(Self.start), logger: Self.logger)
            try await changes.replace(
                appId: Self.shop, with: .init(mode: .monitor, attestationRequiredPercent: 40, routeProtections: ["/api/buy": "require"]),
                expectedRevision: nil, by: "ops", logger: Self.logger
            )
            #expect(try apps.policy(for: Self.shop).mode == .monitor)
            #expect(try apps.policy(for: Self.shop).attestationRequiredPercent == 40)
            let stored = try #require(apps.override(for: Self.shop))
            #expect(stored.revision == 1 && stored.updatedBy == "ops" && stored.updatedAt == Self.start)
            #expect(stored.routeProtections == ["/api/buy": "require"])
            try await changes.replace(appId: Self.shop, with: nil, expectedRevision: 1, by: "ops", logger: Self.logger)
            #expect(try apps.policy(for: Self.shop).mode == .enforce)
            #expect(try apps.policy(for: Self.shop).attestationRequiredPercent == 10)
            let rows = try await test.store.appPolicyOverrides()
            #expect(rows.count == 1 && rows.first?.revision == 2 && rows.first?.isEmpty == true, "a cleared policy is a row with its revision")
        }
    }

    @Test("a change naming a revision that is not stored is precondition_failed and stores nothing")
    func staleRevision() async throws {
        try await withTestStore(.sqlite) { (test: TestStore) async throws in
            let apps = Self.catalog()
            let changes = AppPolicyChanges(store: test.store, apps: apps, clock: ManualClock(Self.start), logger: Self.logger)
            try await changes.replace(appId: Self.shop, with: .init(mode: .monitor), expectedRevision: 0, by: "ops", logger: Self.logger)
            let refusal = await #expect(throws: EngineError.self) {
                try await changes.replace(appId: Self.shop, with: .init(attestationRequiredPercent: 90), expectedRevision: 0, by: "ops", logger: Self.logger)
            }
            #expect(refusal?.kind == .preconditionFailed && refusal?.code == .preconditionFailed, "\(String(describing: refusal))")
            #expect(try apps.policy(for: Self.shop).attestationRequiredPercent == 10)
            #expect(try await test.store.appPolicyOverrides().first?.revision == 1)
        }
    }

    @Test("another process's change between two of ours: ours lands on its revision and both see the latest")
    func twoProcesses() async throws {
        try await withTestStore(.sqlite) { (test: TestStore) async throws in
            let ours = Self.catalog(), theirs = Self.catalog()
            let here = AppPolicyChanges(store: test.store, apps: ours, clock: ManualClock(Self.start), logger: Self.logger)
            let there = AppPolicyChanges(store: test.store, apps: theirs, clock: ManualClock(Self.start), logger: Self.logger)
            try await here.replace(appId: Self.shop, with: .init(mode: .monitor), expectedRevision: nil, by: "a", logger: Self.logger)
            try await there.replace(appId: Self.shop, with: .init(attestationRequiredPercent: 70), expectedRevision: nil, by: "b", logger: Self.logger)
            #expect(ours.override(for: Self.shop)?.revision == 1, "not reloaded yet")
            try await here.replace(appId: Self.shop, with: .init(attestationRequiredPercent: 80), expectedRevision: nil, by: "a", logger: Self.logger)
            #expect(ours.override(for: Self.shop)?.revision == 3)
            #expect(try ours.policy(for: Self.shop).attestationRequiredPercent == 80)
        }
    }

    @Test("the ramp before anything is stored, a resume of an app without a ramp, and a paused ramp resumed")
    func ramp() async throws {
        try await withTestStore(.sqlite) { (test: TestStore) async throws in
            let apps = Self.catalog()
            let clock = ManualClock(Self.start)
            let changes = AppPolicyChanges(store: test.store, apps: apps, clock: clock, logger: Self.logger)
            let rampedApp = try #require(apps.configuredPolicy(for: Self.ramped))
            let report = try #require(apps.rampReport(for: rampedApp, now: Self.start))
            #expect(report.state == "ramping" && report.percent == 5 && !report.pinned && report.periodStart == nil)
            #expect(report.nextEvaluationAt == Date(timeIntervalSince1970: TimeInterval(AttestationRamp.periodStart(of: Self.start, period: 3_600) + 3_600)))
            let plain = try #require(apps.configuredPolicy(for: Self.shop))
            #expect(apps.rampReport(for: plain, now: Self.start) == nil)
            let refusal = await #expect(throws: EngineError.self) { try await changes.resumeRamp(of: plain, by: "ops") }
            #expect(refusal?.code == .rampNotConfigured)
            // A stored, paused ramp ramps again.
            let paused = AttestationRampRecord(
                appId: Self.ramped, percent: 20, state: AttestationRampState.paused.rawValue, evaluatedPeriod: 0, lastStepAt: Self.start,
                revision: 1, updatedAt: Self.start, updatedBy: "ramp"
            )
            #expect(try await test.store.replaceAttestationRamp(paused, expectedRevision: 0))
            try await AppPolicyOverrides(store: test.store, catalog: apps, logger: Self.logger).refresh()
            #expect(apps.rampReport(for: rampedApp, now: Self.start)?.state == "paused")
            try await changes.resumeRamp(of: rampedApp, by: "ops")
            let resumed = try #require(try await test.store.attestationRamps().first)
            #expect(resumed.state == "ramping" && resumed.updatedBy == "ops" && resumed.percent == 20)
            #expect(apps.rampReport(for: rampedApp, now: Self.start)?.state == "ramping")
            try await changes.replace(appId: Self.ramped, with: .init(attestationRequiredPercent: 50), expectedRevision: nil, by: "ops", logger: Self.logger)
            #expect(apps.rampReport(for: rampedApp, now: Self.start)?.pinned == true)
        }
    }
}

/// A batch of labels checked whole before any is stored.
@Suite("Labels: a batch from the API")
struct LabelBatchTests {
    @Test("the first refused or unreadable label refuses the batch and names its index; a valid batch is stored in one go")
    func batch() async throws {
        try await withTestStore(.sqlite) { (test: TestStore) async throws in
            let engine = Engine(
                store: test.store, apps: AppCatalog([AppPolicy(appId: AppPolicyChangesTests.shop)]), settings: EngineSettings(),
                clock: ManualClock(AppPolicyChangesTests.start)
            )
            let good = LabelFields(appId: AppPolicyChangesTests.shop, userId: "user-1", label: "fraud", source: "chargebacks")
            let bad = LabelFields(appId: AppPolicyChangesTests.shop, userId: "user-2", label: "maybe", source: "chargebacks")
            let refusal = await #expect(throws: EngineError.self) { try await engine.labels.store([good, bad]) }
            #expect(refusal?.message.hasPrefix("labels[1]: ") == true, "\(String(describing: refusal))")
            let single = await #expect(throws: EngineError.self) { try await engine.labels.store([bad]) }
            #expect(single?.message.hasPrefix("labels[") == false, "one label is not numbered: \(String(describing: single))")
            let badTime = LabelFields(appId: AppPolicyChangesTests.shop, userId: "user-3", label: "fraud", source: "chargebacks", labelledAt: "yesterday")
            let unreadable = await #expect(throws: EngineError.self) { try await engine.labels.store([good, good, badTime]) }
            #expect(unreadable?.code == .invalidField && unreadable?.message.hasPrefix("labels[2]: labelledAt") == true, "\(String(describing: unreadable))")
            #expect(try await test.store.labels(appId: nil).isEmpty, "nothing stored")
            let stored = try await engine.labels.store([good, LabelFields(appId: AppPolicyChangesTests.shop, deviceId: "device-1", label: "legitimate", source: "support")])
            #expect(stored.created == 2)
        }
    }
}
