public import AttestGuardWire
import AttestGuardStore
import AttestVocabulary

extension AttestationOutcomes {
    /// Counts the outcome an app's report (`POST /v1/app/attestation-outcomes`) stands for, for `user`: see
    /// the counts and quota of ``report(_:appId:user:)``.
    @discardableResult
    public func report(_ report: AttestationOutcomeReport, appId: String, user: String) async throws -> Bool {
        try await self.report(report.counted, appId: appId, user: user)
    }
}

extension AttestationOutcomeReport {
    /// The counter the report raises: `failed` with `serverUnavailable` is rate limiting, with `featureUnsupported`
    /// an unsupported device.
    var counted: AttestationOutcomeKind {
        switch outcome {
        case .attested: .attested
        case .unsupported: .unsupported
        case .failed:
            if DeviceCheckErrorCode.isRateLimited(errorCode) { .rateLimited }
            else if DeviceCheckErrorCode.isUnsupported(errorCode) { .unsupported }
            else { .failed }
        }
    }
}
