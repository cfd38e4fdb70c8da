import AttestCore
import Foundation
import RiskRules
import RiskStore

/// Fills a rule set's signals for one request from the request itself and from the store: the key, its receipt
/// and risk-metric history, and stored DeviceCheck bits (never Apple). Only what the rule set reads is fetched.
struct SignalAssembler: Sendable {
    let store: any RiskStore
    let deviceCheck: DeviceCheckService
    let velocity: VelocitySignals

    /// What the layout needs from the store.
    private struct Needs {
        var key = false, receipt = false, history = false, deviceCheck = false, superseded = false

        init(_ layout: SignalLayout) {
            for name in layout.slots.keys {
                if name.hasPrefix("key.") { key = true }
                if name.hasPrefix("receipt.") { key = true; receipt = true }
                if name == "receipt.risk_metric_change_7d" { history = true }
                if name.hasPrefix("devicecheck.") { deviceCheck = true }
                if name == "key.superseded_keys" { superseded = true }
            }
        }
    }

    /// The values for `request` under `app`, at `now`. Store failures are thrown (the scorer applies the app's
    /// `onStoreError`); an attribute of the wrong type is an `invalid_attribute` error.
    func assemble(_ request: ScoreRequest, app: AppPolicy, ruleSet: RuleSet, now: Date) async throws -> SignalValues {
        let values = ruleSet.values(now: now.timeIntervalSince1970)
        let needs = Needs(ruleSet.layout)
        try fillRequest(request, app: app, ruleSet: ruleSet, into: values)
        try await velocity.fill(values, names: ruleSet.layout.names, appId: app.appId, subjects: request.velocitySubjects, now: now)
        var key: KeyRecord?
        if needs.key, let keyId = request.keyId {
            key = try await store.key(appId: app.appId, keyId: keyId)
            fillKey(key, request: request, now: now, into: values)
            if needs.superseded, let key, let deviceId = key.deviceId {
                let count = try await store.supersededKeyCount(appId: key.appId, userId: key.userId, deviceId: deviceId)
                values.set("key.superseded_keys", .number(Double(count)))
            }
        }
        if needs.receipt, let key, let receipt = try await store.receipt(appId: key.appId, keyId: key.keyId) {
            values.set("receipt.type", .string(receipt.receiptType))
            values.set("receipt.risk_metric", receipt.riskMetric.map { .number(Double($0)) })
            values.set("receipt.stale", .bool(receipt.metricStale))
            if let refreshed = receipt.refreshedAt {
                values.set("receipt.refreshed_at", .timestamp(refreshed.timeIntervalSince1970))
                values.set("receipt.refresh_age", .duration(now.timeIntervalSince(refreshed)))
            }
            if needs.history, let metric = receipt.riskMetric {
                let history = try await store.riskMetricHistory(appId: key.appId, keyId: key.keyId)
                let weekAgo = now.addingTimeInterval(-7 * 86_400)
                if let old = history.last(where: { $0.receiptCreatedAt <= weekAgo }) {
                    values.set("receipt.risk_metric_change_7d", .number(Double(metric - old.riskMetric)))
                }
            }
        }
        if needs.deviceCheck {
            try await fillDeviceCheck(request, key: key, app: app, now: now, into: values)
        }
        return values
    }

    private func fillRequest(_ request: ScoreRequest, app: AppPolicy, ruleSet: RuleSet, into values: SignalValues) throws {
        values.set("request.app_id", .string(app.appId))
        values.set("request.endpoint", .string(request.endpoint.rawValue))
        values.set("request.action", request.action.map(SignalValue.string))
        values.set("request.user_id", request.userId.map(SignalValue.string))
        values.set("request.ip", request.ip.map(SignalValue.string))
        values.set("request.device_id", request.deviceId.map(SignalValue.string))
        values.set("request.binding", .string(request.binding ?? "none"))
        values.set("request.attest_status", request.attestStatus.map(SignalValue.string))
        if let userId = request.userId {
            let bucket = RolloutBucket.of(appId: app.appId, userId: userId)
            values.set("rollout.bucket", .number(Double(bucket)))
            values.set("rollout.attestation_required", .bool(bucket < app.attestationRequiredPercent))
        }
        for (name, attribute) in request.attributes {
            guard let type = ruleSet.attributes[name] else { continue }
            guard let value = Self.convert(attribute, to: type) else {
                throw EngineError(.invalidInput, code: "invalid_attribute", "attribute \(name) must be \(type.rawValue) for rule set \(ruleSet.version)")
            }
            values.set("attributes.\(name)", value)
        }
    }

    private func fillKey(_ key: KeyRecord?, request: ScoreRequest, now: Date, into values: SignalValues) {
        guard let key else {
            values.set("key.status", .string("unknown"))
            return
        }
        values.set("key.status", .string(key.status.rawValue))
        values.set("key.environment", .string(key.environment))
        values.set("key.attested_at", .timestamp(key.attestedAt.timeIntervalSince1970))
        values.set("key.age", .duration(now.timeIntervalSince(key.attestedAt)))
        values.set("key.counter", .number(Double(key.counter)))
        if let last = key.lastAssertionAt {
            values.set("key.last_assertion_at", .timestamp(last.timeIntervalSince1970))
            values.set("key.last_assertion_age", .duration(now.timeIntervalSince(last)))
        }
        values.set("key.counter_jump", request.counterJump.map { .number(Double($0)) })
    }

    /// Stored bits of the first subject that has any: the key, then the device, then the user.
    private func fillDeviceCheck(_ request: ScoreRequest, key: KeyRecord?, app: AppPolicy, now: Date, into values: SignalValues) async throws {
        var subjects: [DeviceCheckSubject] = []
        if let keyId = request.keyId { subjects.append(DeviceCheckSubject(kind: .key, value: keyId.base64EncodedString())) }
        if let deviceId = request.deviceId { subjects.append(DeviceCheckSubject(kind: .device, value: deviceId)) }
        if let userId = request.userId { subjects.append(DeviceCheckSubject(kind: .user, value: userId)) }
        let environment = key.flatMap { AppAttestEnvironment(rawValue: $0.environment) }
        for subject in subjects {
            guard let record = try await deviceCheck.storedBits(appId: app.appId, subject: subject, environment: environment), record.found else { continue }
            values.set("devicecheck.bit0", record.bit0.map(SignalValue.bool))
            values.set("devicecheck.bit1", record.bit1.map(SignalValue.bool))
            if let month = record.lastUpdateTime, let updated = Self.month(month) {
                values.set("devicecheck.updated_at", .timestamp(updated.timeIntervalSince1970))
                values.set("devicecheck.age", .duration(now.timeIntervalSince(updated)))
            }
            return
        }
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
