import AttestCore
import AttestVocabulary
import Foundation
import RiskRules
import AttestGuardStore
/// Fills a rule set's signals for one request from the request itself and from the store: the key, its receipt
/// and risk-metric history, stored DeviceCheck bits and the user's last DeviceCheck validation (never Apple),
/// velocity and distinct counts. Only what the rule set reads is fetched, in one store round trip (``RiskStore/scoringFacts(_:)``), and
/// of the facts that change about daily only those ``ScoringFactsCache`` does not hold. The app's risk-metric
/// baseline comes from memory (``RiskBaselineBook``), never from the store.
struct SignalAssembler: Sendable {
    let store: any RiskStore
    let deviceCheck: DeviceCheckService
    let velocity: VelocitySignals
    let distinct: DistinctSignals
    let baselines: RiskBaselineBook
    let factsCache: ScoringFactsCache
    /// The run-time lists, taken once per verdict.
    let lists: ManagedListBook
    let plans = AssemblyPlanCache()

    /// What one verdict reads from the store, planned: the values filled from the request so far, the facts query,
    /// the velocity sums and this process's unflushed counts of them (taken before the store is read, see
    /// VelocityRecorder).
    struct Reading: Sendable {
        var values: SignalValues
        /// What the store is asked: what the rules read, less what the cache answered (``held``).
        var query: ScoringFactsQuery
        var held: ScoringFactsCache.HeldFacts
        var plan: AssemblyPlan
        var velocitySums: [(slot: SignalLayout.Slot, sum: VelocitySum)]
        var localCounts: VelocityRecorder.LocalCounts
        /// Events recorded after the store was read, per sum: neither the reading nor the local counts hold them.
        var recordedSince: [Int64]
        /// The distinct counts to read, in the query's order.
        var distinctReads: [DistinctSignals.Read]

        /// Counts one event of `event` recorded after the store was read (an accepted assertion's own, recorded
        /// after its commit read the facts), in every sum of that event: the sums are this request's subjects.
        mutating func countRecorded(_ event: VelocityEvent) {
            for (index, entry) in velocitySums.enumerated() where entry.sum.event == event.rawValue {
                recordedSince[index] += 1
            }
        }
    }

    /// The values for `request` under `app`, at `now`. Store failures are thrown (the scorer applies the app's
    /// `onStoreError`); an attribute of the wrong type is an `invalid_attribute` error.
    func assemble(_ request: ScoreRequest, subjects: HashedSubjects, app: AppPolicy, ruleSet: RuleSet, now: Date) async throws -> SignalValues {
        let reading = try plan(request, subjects: subjects, app: app, ruleSet: ruleSet, now: now)
        guard !reading.query.isEmpty else { return complete(reading, facts: nil, request: request, now: now) }
        return complete(reading, facts: try await store.scoringFacts(reading.query), request: request, now: now)
    }

    /// Plans the store read of `request`'s verdict; ``complete(_:facts:request:now:)`` fills the values from its answer.
    func plan(_ request: ScoreRequest, subjects: HashedSubjects, app: AppPolicy, ruleSet: RuleSet, now: Date) throws -> Reading {
        let values = ruleSet.values(now: now.timeIntervalSince1970, lists: ruleSet.managedLists.isEmpty ? .empty : lists.snapshot)
        let plan = plans.plan(for: ruleSet)
        try fillRequest(request, app: app, ruleSet: ruleSet, into: values)
        var query = try factsQuery(request, app: app, plan: plan, now: now)
        let held = factsCache.take(from: &query, at: now)
        if plan.labels { query.labelSubjects = Self.labelSubjects(request, subjects: subjects) }
        let velocitySums = velocity.sums(plan.velocity, subjects: subjects, now: now)
        let localCounts = velocity.recorder.localCounts(appId: app.appId, velocitySums.map(\.sum))
        if !velocitySums.isEmpty {
            query.velocity = velocitySums.map(\.sum)
            query.velocityWriter = velocity.recorder.writer
        }
        let distinctReads = distinct.reads(plan.distinct, appId: app.appId, subjects: subjects, now: now)
        query.distinct = distinctReads.compactMap(\.store)
        return Reading(
            values: values, query: query, held: held, plan: plan, velocitySums: velocitySums, localCounts: localCounts,
            recordedSince: Array(repeating: 0, count: velocitySums.count), distinctReads: distinctReads
        )
    }

    /// The values of a planned reading, given the store's facts (nil when nothing was read: when the store was asked
    /// nothing, the cache's facts are all there is).
    func complete(_ reading: Reading, facts stored: ScoringFacts?, request: ScoreRequest, now: Date) -> SignalValues {
        let values = reading.values
        guard let stored = stored ?? (reading.query.isEmpty ? ScoringFacts() : nil) else { return values }
        if !reading.query.isEmpty {
            factsCache.keep(stored, asked: reading.query, held: reading.held, at: now)
        }
        let facts = reading.held.merged(into: stored)
        let plan = reading.plan
        let velocitySums = reading.velocitySums
        if !velocitySums.isEmpty {
            let totals = velocity.recorder.totals(reading.localCounts, reading: facts.velocity)
            velocity.set(values, velocitySums, zip(totals, reading.recordedSince).map { $0 + $1 })
        }
        if !reading.distinctReads.isEmpty {
            distinct.set(values, reading.distinctReads, facts.distinct)
        }
        if plan.key, request.keyId != nil {
            fillKey(facts.key, request: request, now: now, into: values)
            values.set(.keySupersededKeys, facts.supersededKeys.map { .number(Double($0)) })
        }
        if let receipt = facts.receipt {
            values.set(.receiptType, .string(receipt.receiptType.rawValue))
            values.set(.receiptRiskMetric, receipt.riskMetric.map { .number(Double($0)) })
            values.set(.receiptStale, .bool(receipt.metricStale))
            if let refreshed = receipt.refreshedAt {
                values.set(.receiptRefreshedAt, .timestamp(refreshed.timeIntervalSince1970))
                values.set(.receiptRefreshAge, .duration(now.timeIntervalSince(refreshed)))
            }
            if let metric = receipt.riskMetric, let old = facts.metricBaseline {
                values.set(.receiptRiskMetricChange7d, .number(Double(metric - old)))
            }
            if let metric = receipt.riskMetric, let percentile = baselines.baseline(appId: request.appId)?.percentile(of: metric) {
                values.set(.receiptRiskMetricPercentile, .number(percentile))
            }
        }
        if let record = facts.deviceCheck {
            values.set(.devicecheckBit0, record.bit0.map(SignalValue.bool))
            values.set(.devicecheckBit1, record.bit1.map(SignalValue.bool))
            if let month = record.lastUpdateTime, let updated = Self.month(month) {
                values.set(.devicecheckUpdatedAt, .timestamp(updated.timeIntervalSince1970))
                values.set(.devicecheckAge, .duration(now.timeIntervalSince(updated)))
            }
        }
        if plan.labels { Self.fillLabels(facts.labels, now: now, into: values) }
        if let validation = facts.deviceCheckValidation {
            values.set(.devicecheckValidatedAt, .timestamp(validation.validatedAt.timeIntervalSince1970))
            values.set(.devicecheckValidatedAge, .duration(now.timeIntervalSince(validation.validatedAt)))
        }
        return values
    }

    /// What to ask the store: the key's facts the plan reads, the stored DeviceCheck bits of the first subject
    /// that has any (the key, then the device, then the user), in the key's environment, and the user's last
    /// DeviceCheck validation in the app.
    private func factsQuery(_ request: ScoreRequest, app: AppPolicy, plan: AssemblyPlan, now: Date) throws -> ScoringFactsQuery {
        var query = ScoringFactsQuery(appId: app.appId, keyId: plan.key ? request.keyId?.bytes : nil)
        query.receipt = plan.receipt
        query.metricBaselineAt = plan.history ? now.addingTimeInterval(-7 * 86_400) : nil
        query.supersededKeys = plan.superseded
        if plan.deviceCheck {
            let subjects = request.deviceCheckSubjects
            for subject in subjects { try DeviceCheckService.check(subject) }
            if !subjects.isEmpty {
                query.deviceCheck = DeviceCheckQuery(
                    scopes: app.deviceCheckReadScopes,
                    defaultEnvironment: try deviceCheck.environment(for: app, requested: nil),
                    subjects: subjects
                )
            }
        }
        if plan.deviceCheckValidation {
            query.deviceCheckValidationUserId = request.userId?.value
        }
        return query
    }

    /// The subjects whose labels the rules read, named as labels name them: the key by its base64 id, the user and
    /// the device by the decision log's keyed hashes.
    static func labelSubjects(_ request: ScoreRequest, subjects: HashedSubjects) -> [LabelLookup] {
        var lookups: [LabelLookup] = []
        if let keyId = request.keyId { lookups.append(LabelLookup(kind: .key, subject: keyId.base64)) }
        if let user = subjects.user { lookups.append(LabelLookup(kind: .user, subject: user)) }
        if let device = subjects.device { lookups.append(LabelLookup(kind: .device, subject: device)) }
        return lookups
    }

    /// `label.*` from every source's labels of the request's subjects: per subject, the label that applies
    /// (``DecisionLabels/wins(_:over:)``, as the backtest judges them) and its age.
    static func fillLabels(_ labels: [FraudLabelRecord], now: Date, into values: SignalValues) {
        var applying: [LabelSubjectKind: FraudLabelRecord] = [:]
        for label in labels {
            if let held = applying[label.kind], !DecisionLabels.wins(label, over: held) { continue }
            applying[label.kind] = label
        }
        let signals: [(LabelSubjectKind, FixedSignal, FixedSignal)] = [
            (.key, .labelKey, .labelKeyAge), (.user, .labelUser, .labelUserAge), (.device, .labelDevice, .labelDeviceAge),
        ]
        for (kind, label, age) in signals {
            guard let applied = applying[kind] else { continue }
            values.set(label, .string(applied.label.rawValue))
            values.set(age, .duration(max(0, now.timeIntervalSince(applied.labelledAt))))
        }
    }

    private func fillRequest(_ request: ScoreRequest, app: AppPolicy, ruleSet: RuleSet, into values: SignalValues) throws {
        values.set(.requestAppId, .string(app.appId))
        values.set(.requestEndpoint, .string(request.endpoint.rawValue))
        values.set(.requestAction, request.action.map(SignalValue.string))
        values.set(.requestUserId, request.userId.map { .string($0.value) })
        values.set(.requestIp, request.ip.map { .string($0.text) })
        values.set(.requestDeviceId, request.deviceId.map { .string($0.value) })
        values.set(.requestBinding, .string((request.binding ?? RequestBindingSignal.none).rawValue))
        let kind: KeyKind? = request.keyId != nil ? .attested : request.debugTokenId != nil ? .debug : nil
        values.set(.keyKind, kind.map { .string($0.rawValue) })
        values.set(.keyDebugToken, request.debugTokenId.map(SignalValue.string))
        values.set(.requestAttestStatus, request.attestStatus.map(SignalValue.string))
        values.set(.requestValidationCategory, request.validationCategory.map { .string($0.name) })
        values.set(.requestBundleVersion, request.bundleVersion.map(SignalValue.string))
        if let baseline = baselines.baseline(appId: app.appId) {
            values.set(.appRiskMetricP50, baseline.p50.map { .number(Double($0)) })
            values.set(.appRiskMetricP90, baseline.p90.map { .number(Double($0)) })
            values.set(.appRiskMetricP99, baseline.p99.map { .number(Double($0)) })
        }
        if let userId = request.userId {
            let bucket = RolloutBucket.of(appId: app.appId, userId: userId.value)
            values.set(.rolloutBucket, .number(Double(bucket)))
            values.set(.rolloutAttestationRequired, .bool(bucket < app.attestationRequiredPercent))
        }
        for (name, value) in try Self.attributeValues(request.attributes, for: ruleSet) {
            values.set(.attribute(name), value)
        }
    }

    /// The attributes the rule set declares, converted to their declared types; the others are ignored.
    /// - Throws: `invalid_attribute` for an attribute that is not of its declared type.
    static func attributeValues(
        _ attributes: [String: AssertedRequest.Attribute], for ruleSet: RuleSet
    ) throws(EngineError) -> [(name: String, value: SignalValue)] {
        var converted: [(name: String, value: SignalValue)] = []
        for (name, attribute) in attributes {
            guard let type = ruleSet.attributes[name] else { continue }
            guard let value = convert(attribute, to: type) else {
                throw EngineError(.invalidInput, code: .invalidAttribute, "attribute \(name) must be \(type.rawValue) for rule set \(ruleSet.version)")
            }
            converted.append((name, value))
        }
        return converted
    }

    private func fillKey(_ key: KeyRecord?, request: ScoreRequest, now: Date, into values: SignalValues) {
        guard let key else {
            values.set(.keyStatus, .string("unknown"))
            return
        }
        values.set(.keyStatus, .string(key.status.rawValue))
        values.set(.keyEnvironment, .string(key.environment.rawValue))
        values.set(.keyAttestedAt, .timestamp(key.attestedAt.timeIntervalSince1970))
        values.set(.keyAge, .duration(now.timeIntervalSince(key.attestedAt)))
        values.set(.keyCounter, .number(Double(key.counter)))
        values.set(.keyOsVersion, key.osVersion.map(SignalValue.string))
        values.set(.keyValidationCategory, key.validationCategory.map { .string($0.name) })
        values.set(.keyBundleVersion, key.bundleVersion.map(SignalValue.string))
        if let last = key.lastAssertionAt {
            values.set(.keyLastAssertionAt, .timestamp(last.timeIntervalSince1970))
            values.set(.keyLastAssertionAge, .duration(now.timeIntervalSince(last)))
        }
        values.set(.keyCounterJump, request.counterJump.map { .number(Double($0)) })
    }

    /// The first instant of Apple's `YYYY-MM` in UTC.
    static func month(_ text: String) -> Date? {
        let parts = text.split(separator: "-")
        guard parts.count == 2, let year = Int(parts[0]), let month = Int(parts[1]), (1...12).contains(month) else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar.date(from: DateComponents(year: year, month: month, day: 1))
    }

    static func convert(_ attribute: AssertedRequest.Attribute, to type: SignalType) -> SignalValue? {
        switch (attribute, type) {
        case (.number(let value), .number): .number(value)
        case (.number(let seconds), .duration): .duration(seconds)
        case (.string(let text), .duration): SignalInput.duration(text).map(SignalValue.duration)
        case (.number(let seconds), .timestamp): .timestamp(seconds)
        case (.string(let text), .timestamp): SignalInput.timestamp(text).map(SignalValue.timestamp)
        case (.string(let text), .string): .string(text)
        case (.bool(let flag), .bool): .bool(flag)
        default: nil
        }
    }
}
