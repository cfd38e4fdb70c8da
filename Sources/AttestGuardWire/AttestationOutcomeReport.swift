/// `POST /v1/app/attestation-outcomes` request body: how one attestation attempt of the app went on the device, for
/// the automatic attestation rollout. The app and user come from the gateway.
public struct AttestationOutcomeReport: Codable, Sendable, Hashable {
    /// What `DCAppAttestService` answered.
    public enum Outcome: String, Codable, Sendable, Hashable, CaseIterable {
        /// `attestKey` returned an attestation object.
        case attested
        /// `attestKey` (or `generateKey`) failed; `errorCode` is the `DCError.Code`.
        case failed
        /// `DCAppAttestService.isSupported` is false on the device.
        case unsupported
    }

    public var outcome: Outcome
    /// `DCError.Code`'s raw value for `failed` (``DeviceCheckErrorCode``).
    public var errorCode: Int?

    public init(outcome: Outcome, errorCode: Int? = nil) {
        self.outcome = outcome
        self.errorCode = errorCode
    }
}

/// The raw values of Apple's `DCError.Code`, and which of them the rollout reads as rate limiting.
public enum DeviceCheckErrorCode {
    public static let unknownSystemFailure = 0
    public static let featureUnsupported = 1
    public static let invalidInput = 2
    public static let invalidKey = 3
    /// Apple's service is unavailable or is limiting the app: the one code the rollout counts as rate limited.
    public static let serverUnavailable = 4

    /// Whether `code` means Apple is rate limiting (or too busy for) the app: only `serverUnavailable`. The other
    /// codes are the device's or the app's own failures.
    public static func isRateLimited(_ code: Int?) -> Bool { code == serverUnavailable }

    /// Whether `code` means the device cannot use App Attest (`featureUnsupported`), as `isSupported` false does.
    public static func isUnsupported(_ code: Int?) -> Bool { code == featureUnsupported }
}
