public import AttestVocabulary

/// Apple's two per-device bits and when they were last set (`YYYY-MM`, Apple's `last_update_time`).
public struct DeviceCheckBits: Sendable, Hashable, Codable {
    public var bit0: Bool
    public var bit1: Bool
    /// Apple's `last_update_time`, a month such as `2026-11`.
    public var lastUpdateTime: String

    public init(bit0: Bool, bit1: Bool, lastUpdateTime: String) {
        self.bit0 = bit0
        self.bit1 = bit1
        self.lastUpdateTime = lastUpdateTime
    }
}

/// What a successful `query_two_bits` found: the bits, or Apple's "Bit State Not Found" (never set).
public enum DeviceCheckQueryAnswer: Sendable, Hashable {
    case bits(DeviceCheckBits)
    case notFound
}

/// Something that talks DeviceCheck: Apple's API in production (``DeviceCheckClient``), the simulator's fake
/// Apple in tests. Device tokens are single-use and never stored by callers.
public protocol DeviceChecking: Sendable {
    /// `query_two_bits`.
    func query(deviceToken: String, environment: AppAttestEnvironment) async -> Result<DeviceCheckQueryAnswer, DeviceCheckFailure>
    /// `update_two_bits`; a `nil` bit is left as it is.
    func update(deviceToken: String, bit0: Bool?, bit1: Bool?, environment: AppAttestEnvironment) async -> Result<Void, DeviceCheckFailure>
    /// `validate_device_token`.
    func validate(deviceToken: String, environment: AppAttestEnvironment) async -> Result<Void, DeviceCheckFailure>
}
