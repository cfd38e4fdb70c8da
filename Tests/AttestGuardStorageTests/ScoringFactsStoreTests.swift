import AttestVocabulary
import AttestTestSupport
import Foundation
import AttestGuardStore
import Testing

/// `scoringFacts`: the one-statement read on PostgreSQL, and SQLite's statement for the exact facts, answer exactly what
/// the single reads answer, part by part.
@Suite("Scoring facts in the store")
struct ScoringFactsStoreTests {
    static let day: TimeInterval = 86_400

    /// Stores a redeemed receipt for `key` created `days` after the fixtures' now, with `metric`.
    static func redeem(_ key: KeyRecord, days: Double, metric: Int, in store: any RiskStore) async throws {
        let created = StoreFixtures.now.addingTimeInterval(days * day)
        let receipt = ReceiptRecord(
            appId: key.appId, keyId: key.keyId, receiptType: .receipt, receipt: Data("refreshed-\(days)".utf8), createdAt: created,
            notBefore: created.addingTimeInterval(day), expiresAt: created.addingTimeInterval(90 * day), riskMetric: metric,
            storedAt: created, nextRefreshAt: created.addingTimeInterval(20 * 3_600)
        )
        #expect(try await store.replaceReceipt(ReceiptReplacement(receipt: receipt, leaseOwner: "test", observedAt: created)) == .replaced(historyRecorded: true))
    }

    static func bits(_ kind: DeviceCheckSubject.Kind, _ value: String, environment: AppAttestEnvironment, found: Bool = true, bit0: Bool) -> DeviceCheckRecord {
        DeviceCheckRecord(
            scope: .app(StoreFixtures.appId), environment: environment, subject: DeviceCheckSubject(kind: kind, value: value), bit0: found ? bit0 : nil,
            bit1: found ? false : nil, found: found, lastUpdateTime: found ? "2026-10" : nil, observedAt: StoreFixtures.now
        )
    }

    /// The facts, after checking that the single reads agree.
    static func facts(_ query: ScoringFactsQuery, in store: any RiskStore) async throws -> ScoringFacts {
        let facts = try await store.scoringFacts(query)
        #expect(facts == (try await store.scoringFactsFromSingleReads(query)), "one statement and single reads differ for \(query)")
        return facts
    }

    @Test("key, receipt summary, metric baseline, superseded keys, the first DeviceCheck subject with bits and velocity sums, each only when asked", arguments: StoreBackend.available)
    func facts(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let store = test.store
            let old = try await StoreFixtures.register(StoreFixtures.key(), in: store)
            let current = try await StoreFixtures.register(StoreFixtures.key(), in: store)
            let deviceless = try await StoreFixtures.register(StoreFixtures.key(userId: "user-2", deviceId: nil), in: store)
            try await Self.redeem(current, days: 1, metric: 2, in: store)
            try await Self.redeem(current, days: 8, metric: 5, in: store)
            let keySubject = DeviceCheckSubject(kind: .key, value: current.keyId.base64EncodedString())
            try await store.storeDeviceCheckBits(Self.bits(.key, keySubject.value, environment: .development, found: false, bit0: false))
            try await store.storeDeviceCheckBits(Self.bits(.device, "device-1", environment: .development, bit0: true))
            try await store.storeDeviceCheckBits(Self.bits(.user, "user-1", environment: .production, bit0: false))
            let subjects = [keySubject, DeviceCheckSubject(kind: .device, value: "device-1"), DeviceCheckSubject(kind: .user, value: "user-1")]
            let deviceCheck = DeviceCheckQuery(scopes: [.app(StoreFixtures.appId)], defaultEnvironment: .production, subjects: subjects)

            let everything = try await Self.facts(ScoringFactsQuery(
                appId: current.appId, keyId: current.keyId, receipt: true, metricBaselineAt: StoreFixtures.now.addingTimeInterval(7 * Self.day),
                supersededKeys: true, deviceCheck: deviceCheck
            ), in: store)
            #expect(everything.key?.keyId == current.keyId && everything.key?.status == .active)
            #expect(everything.receipt == ReceiptSummary(receiptType: .receipt, riskMetric: 5, metricStale: false,
                                                        refreshedAt: StoreFixtures.now.addingTimeInterval(8 * Self.day)))
            #expect(everything.metricBaseline == 2, "the last receipt created at or before the baseline")
            #expect(everything.supersededKeys == 1)
            #expect(everything.deviceCheck?.subject.kind == .device, "the key's record is not-found, so the device's comes next")
            #expect(everything.deviceCheck?.environment == .development, "the key's environment, not the default")
            #expect(everything.deviceCheck?.bit0 == true && everything.deviceCheck?.lastUpdateTime == "2026-10")

            let keyOnly = try await Self.facts(ScoringFactsQuery(appId: current.appId, keyId: current.keyId), in: store)
            #expect(keyOnly == ScoringFacts(key: everything.key))

            let early = try await Self.facts(ScoringFactsQuery(
                appId: current.appId, keyId: current.keyId, metricBaselineAt: StoreFixtures.now.addingTimeInterval(Self.day / 2)
            ), in: store)
            #expect(early.metricBaseline == nil, "no metric that old")

            let superseded = try await Self.facts(ScoringFactsQuery(appId: old.appId, keyId: old.keyId, receipt: true, supersededKeys: true), in: store)
            #expect(superseded.key?.status == .superseded && superseded.receipt?.receiptType == .attest && superseded.receipt?.riskMetric == nil)
            #expect(superseded.supersededKeys == 1)

            let noDevice = try await Self.facts(ScoringFactsQuery(appId: deviceless.appId, keyId: deviceless.keyId, supersededKeys: true), in: store)
            #expect(noDevice.key != nil && noDevice.supersededKeys == nil, "no device id: no count")

            let unknown = try await Self.facts(ScoringFactsQuery(
                appId: current.appId, keyId: StoreFixtures.randomId(), receipt: true, metricBaselineAt: StoreFixtures.now,
                supersededKeys: true, deviceCheck: deviceCheck
            ), in: store)
            #expect(unknown.key == nil && unknown.receipt == nil && unknown.metricBaseline == nil && unknown.supersededKeys == nil)
            #expect(unknown.deviceCheck?.subject.kind == .user && unknown.deviceCheck?.environment == .production, "no key: the default environment")

            let keyless = try await Self.facts(ScoringFactsQuery(appId: current.appId, keyId: nil, receipt: true, supersededKeys: true), in: store)
            #expect(keyless == ScoringFacts())

            let otherApp = try await Self.facts(ScoringFactsQuery(appId: StoreFixtures.otherAppId, keyId: current.keyId, receipt: true), in: store)
            #expect(otherApp == ScoringFacts(), "keys belong to their app")

            let increment = { (subject: String, bucket: Int64, count: Int64) in
                VelocityIncrement(key: .init(appId: current.appId, subject: subject, event: "assertions", granularity: 60, bucket: bucket), count: count)
            }
            try await store.addVelocity([increment("s1", 600, 2), increment("s1", 660, 3), increment("s2", 660, 1)],
                                        flush: VelocityFlush(writer: "w", sequence: 4, at: StoreFixtures.now))
            let sums = [
                VelocitySum(subject: "s1", event: "assertions", since: 600),
                VelocitySum(subject: "s1", event: "assertions", since: 660),
                VelocitySum(subject: "s2", event: "assertions", since: 0),
                VelocitySum(subject: "s3", event: "assertions", since: 0),
            ]
            let velocity = try await Self.facts(ScoringFactsQuery(appId: current.appId, keyId: current.keyId, velocity: sums, velocityWriter: "w"), in: store)
            #expect(velocity.velocity == VelocityReading(totals: [5, 3, 1, 0], flushedSequence: 4))
            #expect(velocity.key?.keyId == current.keyId, "with the key in the same round trip")
            let velocityOnly = try await Self.facts(ScoringFactsQuery(appId: current.appId, keyId: nil, velocity: sums), in: store)
            #expect(velocityOnly == ScoringFacts(velocity: VelocityReading(totals: [5, 3, 1, 0], flushedSequence: 0)))
            #expect(try await store.scoringFacts(ScoringFactsQuery(appId: StoreFixtures.otherAppId, keyId: nil, velocity: sums)).velocity.totals == [0, 0, 0, 0])
        }
    }

    @Test("the user's DeviceCheck validation in the app, only when asked, alone or beside the key", arguments: StoreBackend.available)
    func deviceCheckValidation(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let store = test.store
            let key = try await StoreFixtures.register(StoreFixtures.key(), in: store)
            let validation = DeviceCheckValidationRecord(appId: key.appId, userId: key.userId, environment: .development, validatedAt: StoreFixtures.now)
            let asked = ScoringFactsQuery(appId: key.appId, keyId: nil, deviceCheckValidationUserId: key.userId)
            #expect(try await Self.facts(asked, in: store) == ScoringFacts(), "never validated: missing")

            try await store.recordDeviceCheckValidation(validation)
            #expect(try await Self.facts(asked, in: store) == ScoringFacts(deviceCheckValidation: validation))
            let withKey = try await Self.facts(ScoringFactsQuery(appId: key.appId, keyId: key.keyId, deviceCheckValidationUserId: key.userId), in: store)
            #expect(withKey.key?.keyId == key.keyId && withKey.deviceCheckValidation == validation)
            #expect(try await Self.facts(ScoringFactsQuery(appId: key.appId, keyId: key.keyId), in: store).deviceCheckValidation == nil, "not asked")
            let otherUser = ScoringFactsQuery(appId: key.appId, keyId: nil, deviceCheckValidationUserId: "someone-else")
            #expect(try await Self.facts(otherUser, in: store) == ScoringFacts())
            let otherApp = ScoringFactsQuery(appId: StoreFixtures.otherAppId, keyId: nil, deviceCheckValidationUserId: key.userId)
            #expect(try await Self.facts(otherApp, in: store) == ScoringFacts(), "validations belong to their app")
        }
    }

    @Test("every source's labels of the key, user and device asked for, in this app only; beside an assertion's commit too", arguments: StoreBackend.available)
    func labels(backend: StoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let store = test.store
            let key = try await StoreFixtures.register(StoreFixtures.key(), in: store)
            let keyName = key.keyId.base64EncodedString()
            func label(_ kind: LabelSubjectKind, _ subject: String, _ source: String, _ value: FraudLabel, app: String = key.appId) -> FraudLabelRecord {
                FraudLabelRecord(appId: app, kind: kind, subject: subject, source: source, label: value, labelledAt: StoreFixtures.now)
            }
            let stored = [
                label(.key, keyName, "chargebacks", .fraud), label(.key, keyName, "support", .legitimate), label(.user, "user-hash", "chargebacks", .fraud),
                label(.device, "device-hash", "support", .legitimate), label(.device, "other-device", "support", .fraud),
                label(.user, "user-hash", "chargebacks", .fraud, app: StoreFixtures.otherAppId), label(.decision, "req-1", "support", .fraud),
            ]
            _ = try await store.storeLabels(stored)
            let subjects = [
                LabelLookup(kind: .key, subject: keyName), LabelLookup(kind: .user, subject: "user-hash"), LabelLookup(kind: .device, subject: "device-hash"),
            ]
            let expected = [stored[3], stored[0], stored[1], stored[2]]
            #expect(try await store.labels(appId: key.appId, of: subjects) == expected)
            var asked = ScoringFactsQuery(appId: key.appId, keyId: key.keyId)
            asked.labelSubjects = subjects
            let facts = try await Self.facts(asked, in: store)
            #expect(facts.labels == expected)
            #expect(facts.key?.keyId == key.keyId)
            var alone = ScoringFactsQuery(appId: key.appId, keyId: nil)
            alone.labelSubjects = [LabelLookup(kind: .user, subject: "user-hash")]
            #expect(try await Self.facts(alone, in: store).labels == [stored[2]])
            alone.labelSubjects = [LabelLookup(kind: .user, subject: "nobody")]
            #expect(try await Self.facts(alone, in: store) == ScoringFacts(), "no label: none")
            #expect(try await Self.facts(ScoringFactsQuery(appId: key.appId, keyId: key.keyId), in: store).labels.isEmpty, "not asked")

            // The labels come back with an assertion's commit as with a verdict's read.
            let challenge = StoreFixtures.challenge(keyId: key.keyId)
            _ = try await store.issueChallenge(challenge, quota: StoreFixtures.quota)
            let commit = AssertionCommit(claim: StoreFixtures.claim(challenge, key: key), counter: 1, requestContext: nil)
            let (outcome, committed) = try await store.commitAssertion(commit, readingFacts: asked)
            #expect(outcome == .committed(previousCounter: 0))
            #expect(committed?.labels == expected)
        }
    }
}
