public import AppleServices
public import Foundation
public import AttestGuardStore
public import AttestVocabulary

/// Asks Apple's DeviceCheck about a device and files the answer under a subject the caller names, so that
/// scoring can read the bits later without calling Apple (``storedBits(appId:subject:environment:)``; a verdict
/// reads them with its other facts through `RiskStore.scoringFacts`), and records when a user's device last passed
/// validation (``validateSession(appId:userId:deviceToken:)``), which scoring reads the same way.
///
/// Bits are filed per app (``AppPolicy/deviceCheckScope``; apps the operator opts into sharing file them per team)
/// and per environment: `environment` when the caller names one (it must be one the app accepts), else production
/// when the app accepts production, else development. A subject of kind key must be a key registered to the app. Device tokens are single-use: they go to Apple and nowhere else (never stored, logged or put in
/// an error message). Every call counts in `attestguard_devicecheck_requests_total{operation,result}`.
public struct DeviceCheckService: Sendable {
    /// The most characters a device token may have (`DCDevice` tokens are about 2,000).
    public static let maximumDeviceTokenLength = 4_096
    /// How long a caller is asked to wait after Apple throttled or failed (Apple's `Retry-After` is not passed on).
    public static let retryAfter: TimeInterval = 5

    let client: (any DeviceChecking)?
    let store: any RiskStore
    let apps: AppCatalog
    let clock: any EngineClock
    let metrics: EngineMetrics
    /// Told of every bit and validation this service stores, so that verdicts read them at once.
    let factsCache: ScoringFactsCache

    /// - Parameters:
    ///   - client: Apple's DeviceCheck API, or `nil` when no Apple credentials are configured (every call but
    ///     ``storedBits(appId:subject:environment:)`` is then `devicecheck_unavailable`).
    ///   - store: Where bits are kept.
    ///   - apps: The configured apps.
    ///   - clock: Stamps `observedAt` and the month of an update.
    ///   - metrics: The counters.
    ///   - factsCache: The verdicts' cache of stored bits and validations (the engine's).
    public init(
        client: (any DeviceChecking)?, store: any RiskStore, apps: AppCatalog, clock: any EngineClock, metrics: EngineMetrics = EngineMetrics(),
        factsCache: ScoringFactsCache = ScoringFactsCache(limits: .disabled)
    ) {
        self.factsCache = factsCache
        self.client = client
        self.store = store
        self.apps = apps
        self.clock = clock
        self.metrics = metrics
    }

    /// Whether Apple can be asked.
    public var isConfigured: Bool { client != nil }

    /// Asks Apple for the device's bits (`query_two_bits`); with `filing`, stores the answer under `subject` (Apple's
    /// "Bit State Not Found" as `found == false`). Only a caller that vouches the token is the subject's files it:
    /// any caller can present any device's token, and filing another device's bits under a victim would change the
    /// victim's verdicts.
    /// - Returns: The stored record after the answer was filed, or Apple's answer as it came when not filing.
    public func query(
        appId: String, deviceToken: String, subject: DeviceCheckSubject, environment: AppAttestEnvironment? = nil, filing: Bool
    ) async throws -> DeviceCheckBits {
        try await instrumented(Self.queryOperation) {
            let target = try target(appId: appId, environment: environment)
            try Self.check(deviceToken: deviceToken)
            try await checkOwned(subject, appId: target.appId)
            let client = try requireClient()
            let answer = try Self.unwrap(await client.query(deviceToken: deviceToken, environment: target.environment), deviceToken: deviceToken, now: clock.now())
            var record: DeviceCheckRecord
            switch answer {
            case .bits(let bits):
                record = target.record(subject, bit0: bits.bit0, bit1: bits.bit1, found: true, lastUpdateTime: bits.lastUpdateTime, at: clock.now())
            case .notFound:
                record = target.record(subject, bit0: nil, bit1: nil, found: false, lastUpdateTime: nil, at: clock.now())
            }
            // A rule's bit 1 waiting for this subject's token goes to Apple now; sent or not, it stays set.
            if filing, try await bit1Pending(subject, in: target) {
                if record.bit1 == true {
                    try await clearBit1Pending(subject, in: target)
                } else {
                    if await sendPendingBit1(subject, deviceToken: deviceToken, in: target, client: client) {
                        record.lastUpdateTime = Self.month(of: clock.now())
                    }
                    record.bit1 = true
                    record.found = true
                }
            }
            let bits = filing ? try await file(record) : DeviceCheckBits(record)
            return (bits, record.found ? Self.foundResult : Self.notFoundResult)
        }
    }

    /// Sets one or both bits at Apple (`update_two_bits`) and stores them under `subject`; a `nil` bit keeps what
    /// is stored. `lastUpdateTime` becomes the engine clock's month in UTC, as Apple records it.
    /// - Returns: The stored record after the update.
    public func update(
        appId: String,
        deviceToken: String,
        subject: DeviceCheckSubject,
        bit0: Bool?,
        bit1: Bool?,
        environment: AppAttestEnvironment? = nil
    ) async throws -> DeviceCheckBits {
        try await instrumented(Self.updateOperation) {
            let target = try target(appId: appId, environment: environment)
            try Self.check(deviceToken: deviceToken)
            try await checkOwned(subject, appId: target.appId)
            guard bit0 != nil || bit1 != nil else {
                throw EngineError.invalid(.missingField, "bit0 or bit1 is required")
            }
            let client = try requireClient()
            // An update of bit 0 alone carries a rule's pending bit 1 with it.
            var bit1 = bit1
            if bit1 == nil, try await bit1Pending(subject, in: target) { bit1 = true }
            try Self.unwrap(
                await client.update(deviceToken: deviceToken, bit0: bit0, bit1: bit1, environment: target.environment),
                deviceToken: deviceToken,
                now: clock.now()
            )
            let now = clock.now()
            let record = target.record(subject, bit0: bit0, bit1: bit1, found: true, lastUpdateTime: Self.month(of: now), at: now)
            // An update that sets bit 1 carries a rule's pending bit to Apple; one that clears it overrides the rule.
            let filed = try await file(record)
            if bit1 != nil {
                try? await clearBit1Pending(subject, in: target)
            }
            return (filed, Self.updatedResult)
        }
    }

    /// Asks Apple whether the device token is valid (`validate_device_token`); stores nothing.
    /// - Returns: The environment Apple was asked in.
    @discardableResult
    public func validate(appId: String, deviceToken: String, environment: AppAttestEnvironment? = nil) async throws -> AppAttestEnvironment {
        try await instrumented(Self.validateOperation) {
            let target = try target(appId: appId, environment: environment)
            try await askValid(deviceToken, in: target)
            return (target.environment, Self.validResult)
        }
    }

    /// The bits the app has stored for `subject`, without calling Apple.
    public func storedBits(appId: String, subject: DeviceCheckSubject, environment: AppAttestEnvironment? = nil) async throws -> DeviceCheckBits? {
        let target = try target(appId: appId, environment: environment)
        try await checkOwned(subject, appId: target.appId)
        for scope in target.readScopes {
            if let record = try await withStore({ try await store.deviceCheckBits(scope: scope, environment: target.environment, subject: subject) }) {
                return DeviceCheckBits(record)
            }
        }
        return nil
    }

    /// The environment DeviceCheck is asked in for an app: `requested` when the app accepts it
    /// (`environment_not_allowed` otherwise), else production when accepted, else development.
    public func environment(for app: AppPolicy, requested: AppAttestEnvironment?) throws(EngineError) -> AppAttestEnvironment {
        if let requested {
            guard app.environments.contains(requested) else {
                throw EngineError.verification(.environmentNotAllowed, "app \(app.appId) does not accept the \(requested) environment")
            }
            return requested
        }
        return app.environments.contains(.production) ? .production : .development
    }

    /// `YYYY-MM` of an instant in UTC: Apple's `last_update_time`.
    public static func month(of instant: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let parts = calendar.dateComponents([.year, .month], from: instant)
        return String(format: "%04d-%02d", parts.year ?? 1970, parts.month ?? 1)
    }

    // MARK: - Steps

    /// The metric results of success: a valid device token, bits found or not, bits updated.
    static let validResult = "valid"
    static let foundResult = "found"
    static let notFoundResult = "not_found"
    static let updatedResult = "updated"
    /// The metric operations of ``query(appId:deviceToken:subject:environment:)``, `update` and `validate`.
    static let queryOperation = "query"
    static let updateOperation = "update"
    static let validateOperation = "validate"

    func target(appId: String, environment requested: AppAttestEnvironment?) throws -> DeviceCheckTarget {
        let app = try apps.policy(for: appId)
        return DeviceCheckTarget(
            appId: app.appId, scope: app.deviceCheckScope, readScopes: app.deviceCheckReadScopes,
            environment: try environment(for: app, requested: requested)
        )
    }

    /// Checks `subject`; one of kind key must name a key registered to the app (`key_not_found` otherwise), so
    /// that no caller files bits under another app's key.
    private func checkOwned(_ subject: DeviceCheckSubject, appId: String) async throws {
        try Self.check(subject)
        guard subject.kind == .key else { return }
        let keyId = try KeyId(base64: subject.value, field: "subject.id")
        guard try await withStore({ try await store.key(appId: appId, keyId: keyId.bytes) }) != nil else {
            throw EngineError(.notFound, code: .keyNotFound, "no key with this id is registered for \(appId)")
        }
    }

    /// Asks Apple whether the device token is valid in the target's environment (a malformed token never reaches
    /// Apple).
    func askValid(_ deviceToken: String, in target: DeviceCheckTarget) async throws {
        try Self.check(deviceToken: deviceToken)
        let client = try requireClient()
        try Self.unwrap(await client.validate(deviceToken: deviceToken, environment: target.environment), deviceToken: deviceToken, now: clock.now())
    }

    func requireClient() throws -> any DeviceChecking {
        guard let client else {
            throw EngineError(.upstreamUnavailable(retryAt: nil), code: .devicecheckUnavailable, "DeviceCheck is not configured: the server has no Apple credentials")
        }
        return client
    }

    /// Stores the record and reads back what is now stored (a newer observation by another process may win).
    func file(_ record: DeviceCheckRecord) async throws -> DeviceCheckBits {
        // Told whatever the outcome: a write that timed out may still have committed.
        defer { factsCache.deviceCheckBitsChanged(scope: record.scope, environment: record.environment, subject: record.subject) }
        try await withStore { try await store.storeDeviceCheckBits(record) }
        let stored = try await withStore {
            try await store.deviceCheckBits(scope: record.scope, environment: record.environment, subject: record.subject)
        }
        return DeviceCheckBits(stored ?? record)
    }

    func instrumented<Value>(_ operation: String, _ body: () async throws -> (Value, String)) async throws -> Value {
        do {
            let (value, result) = try await body()
            metrics.recordDeviceCheck(operation: operation, result: result)
            return value
        } catch let error as EngineError {
            metrics.recordDeviceCheck(operation: operation, result: error.code.rawValue)
            throw error
        }
    }
}

/// The app, scope and environment one DeviceCheck call files its answer under, and the scopes it reads.
struct DeviceCheckTarget {
    var appId: String
    var scope: DeviceCheckScope
    var readScopes: [DeviceCheckScope]
    var environment: AppAttestEnvironment

    func record(_ subject: DeviceCheckSubject, bit0: Bool?, bit1: Bool?, found: Bool, lastUpdateTime: String?, at instant: Date) -> DeviceCheckRecord {
        DeviceCheckRecord(
            scope: scope,
            environment: environment,
            subject: subject,
            bit0: bit0,
            bit1: bit1,
            found: found,
            lastUpdateTime: lastUpdateTime,
            observedAt: instant
        )
    }
}
