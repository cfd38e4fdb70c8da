/// A signal that does not depend on the rule set: its name, as rules write it. The rule language's schema
/// (`SignalSchema.fixed`) describes each one, and the engine's signal assembler fills them by these constants, so a
/// misspelled name does not compile; a test checks the two lists are the same.
public enum FixedSignal: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case keyStatus = "key.status"
    case keyKind = "key.kind"
    case keyDebugToken = "key.debug_token"
    case keyEnvironment = "key.environment"
    case keyAttestedAt = "key.attested_at"
    case keyAge = "key.age"
    case keyCounter = "key.counter"
    case keyLastAssertionAt = "key.last_assertion_at"
    case keyLastAssertionAge = "key.last_assertion_age"
    case keyCounterJump = "key.counter_jump"
    case keySupersededKeys = "key.superseded_keys"
    case keyOsVersion = "key.os_version"
    case keyValidationCategory = "key.validation_category"
    case keyBundleVersion = "key.bundle_version"

    case receiptRiskMetric = "receipt.risk_metric"
    case receiptRiskMetricChange7d = "receipt.risk_metric_change_7d"
    case receiptRefreshedAt = "receipt.refreshed_at"
    case receiptRefreshAge = "receipt.refresh_age"
    case receiptStale = "receipt.stale"
    case receiptType = "receipt.type"
    case receiptRiskMetricPercentile = "receipt.risk_metric_percentile"

    case appRiskMetricP50 = "app.risk_metric.p50"
    case appRiskMetricP90 = "app.risk_metric.p90"
    case appRiskMetricP99 = "app.risk_metric.p99"

    case devicecheckBit0 = "devicecheck.bit0"
    case devicecheckBit1 = "devicecheck.bit1"
    case devicecheckUpdatedAt = "devicecheck.updated_at"
    case devicecheckAge = "devicecheck.age"
    case devicecheckValidatedAt = "devicecheck.validated_at"
    case devicecheckValidatedAge = "devicecheck.validated_age"

    case labelKey = "label.key"
    case labelKeyAge = "label.key_age"
    case labelUser = "label.user"
    case labelUserAge = "label.user_age"
    case labelDevice = "label.device"
    case labelDeviceAge = "label.device_age"

    case requestAppId = "request.app_id"
    case requestEndpoint = "request.endpoint"
    case requestAction = "request.action"
    case requestUserId = "request.user_id"
    case requestIp = "request.ip"
    case requestDeviceId = "request.device_id"
    case requestBinding = "request.binding"
    case requestAttestStatus = "request.attest_status"
    case requestValidationCategory = "request.validation_category"
    case requestBundleVersion = "request.bundle_version"

    case rolloutBucket = "rollout.bucket"
    case rolloutAttestationRequired = "rollout.attestation_required"

    public var description: String { rawValue }

    /// The case's position in ``allCases``, for tables indexed by signal (a compiled rule set's slots): reading one
    /// costs no hashing of the name. A case-only enum is stored as its declaration index, which is its position in
    /// `allCases`; a test holds the two equal for every case.
    package var ordinal: Int { Int(unsafeBitCast(self, to: UInt8.self)) }
}

/// The name of any signal a rule reads: a ``FixedSignal``, a velocity count (`velocity.<event>.<per>.<window>`), a
/// distinct count (`distinct.<counted>.<per>.<window>`) or a custom attribute a rule set declares (`attributes.<name>`).
public struct SignalName: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The name as rules write it.
    public let rawValue: String

    private init(rawValue: String) { self.rawValue = rawValue }

    /// A fixed signal's name.
    public init(_ signal: FixedSignal) { self.rawValue = signal.rawValue }

    /// A velocity count: `.velocity(.newKeys, per: .ip, window: .hours(24))` is `velocity.new_keys.ip.24h`.
    public static func velocity(_ event: VelocityEvent, per dimension: VelocityDimension, window: SignalWindow) -> SignalName {
        SignalName(rawValue: "velocity.\(event.rawValue).\(dimension.rawValue).\(window)")
    }

    /// A distinct count: `.distinct(.user, per: .device, window: .hours(24))` is `distinct.users.device.24h`.
    /// - Precondition: `counted` and `per` differ.
    public static func distinct(_ counted: VelocityDimension, per: VelocityDimension, window: SignalWindow) -> SignalName {
        precondition(counted != per, "a distinct count counts one subject per another")
        return SignalName(rawValue: "distinct.\(counted.plural).\(per.rawValue).\(window)")
    }

    /// A custom attribute: `.attribute("account_age")` is `attributes.account_age`.
    public static func attribute(_ name: String) -> SignalName {
        SignalName(rawValue: "attributes.\(name)")
    }

    public var description: String { rawValue }

    public static func < (lhs: SignalName, rhs: SignalName) -> Bool { lhs.rawValue < rhs.rawValue }
}
