import AttestVocabulary
import Metrics

/// The results each flow records, made and published at 0 when the engine starts (``EngineMetrics/init()``) so that `rate()` and `increase()` see a
/// process's first failure of each kind (a series that appears at 1 hides its first increment). A code a flow
/// records outside its list still counts, from its second occurrence on.
extension EngineMetrics {
    /// Failures every flow shares: the request's shape, the app, the store.
    private static let requestFailures: [ErrorCode] = [
        .missingField, .invalidField, .malformedBase64, .invalidAttribute, .appNotFound, .rateLimited, .storeUnavailable,
    ]

    /// Failures of a flow that consumes a challenge.
    private static let challengeFailures: [ErrorCode] = [.challengeNotFound, .challengeExpired, .challengeUsed, .challengeMismatch]

    static let attestationResults: [String] = ["registered", "idempotent"] + (requestFailures + challengeFailures + [
        .environmentNotAllowed, .keyAlreadyRegistered, .keyUserMismatch,
        .malformedCBOR, .malformedAttestation, .unsupportedFormat, .malformedCertificate, .malformedAuthenticatorData,
        .malformedAuthenticatorExtensions, .malformedPublicKey, .malformedKeyId, .malformedClientDataHash, .malformedNonceExtension, .chainInvalid,
        .nonceMismatch, .keyIdMismatch, .rpIdMismatch, .counterNotZero, .aaguidMismatch, .credentialIdMismatch,
        .receiptInvalid,
    ] + AppBuildPolicy.refusalCodes).map(\.rawValue)

    static let assertionResults: [String] = ["accepted"] + (requestFailures + challengeFailures + [
        .keyNotFound, .keyRevoked, .keySuperseded, .keyUserMismatch, .environmentNotAllowed, .malformedClientData,
        .requestBindingMismatch, .malformedAssertion, .malformedSignature, .signatureInvalid, .rpIdMismatch,
        .counterNotIncreasing, .malformedAuthenticatorExtensions, .assertionAlreadyAccepted,
    ] + AppBuildPolicy.refusalCodes).map(\.rawValue)

    static let challengeResults: [String] = ["issued"] + (requestFailures + [
        .keyNotFound, .keyRevoked, .keySuperseded, .keyUserMismatch,
    ]).map(\.rawValue)

    /// DeviceCheck's operations with their successful results; every one can fail with Apple's answers.
    static let deviceCheckResults: [(operation: String, results: [String])] = {
        let failures = (requestFailures + [
            .environmentNotAllowed, .devicecheckUnavailable, .devicecheckBadRequest, .devicecheckUnauthorized, .devicecheckForbidden,
            .devicecheckMethodNotAllowed, .devicecheckThrottled, .devicecheckServerError, .devicecheckTimedOut,
            .devicecheckConnectionFailed, .devicecheckUnexpectedResponse,
        ]).map(\.rawValue)
        return [
            (DeviceCheckService.queryOperation, [DeviceCheckService.foundResult, DeviceCheckService.notFoundResult] + failures),
            (DeviceCheckService.updateOperation, [DeviceCheckService.updatedResult] + failures),
            (DeviceCheckService.validateOperation, [DeviceCheckService.validResult] + failures),
            (DeviceCheckService.sessionOperation, [DeviceCheckService.validResult] + failures),
        ]
    }()
}
