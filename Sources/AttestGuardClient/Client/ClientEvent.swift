public import AttestGuardWire

/// What the client did on its own, for the app's logs and for tests: attestations, replaced keys, retries. Never
/// carries a challenge, an assertion or a DeviceCheck token.
public enum ClientEvent: Sendable, Hashable {
    /// A key was attested and AttestGuard registered it.
    case attested(keyId: String)
    /// A key was dropped because of `reason` (`invalid_key`, `key_not_found`, `key_superseded`).
    case keyDiscarded(keyId: String, reason: String)
    /// App Attest answered `serverUnavailable`; the client waits `delay` seconds and tries the same key again.
    case appAttestRetry(attempt: Int, delay: Double)
    /// The gateway refused the signed request with `code` before it reached the app; the client signs it again.
    case resigned(code: ServerErrorCode)
    /// Attestation is not possible now; requests carry `X-AppAttest-Status: status`.
    case attestationUnavailable(status: AppAttestStatus)
    /// AttestGuard validated this session's DeviceCheck token.
    case deviceValidated
    /// The session's DeviceCheck validation failed (the request still goes, scored without it).
    case deviceValidationFailed(reason: String)
    /// A session token was bought with an assertion; it lives `expiresIn` seconds.
    case sessionTokenIssued(expiresIn: Int)
    /// No session token could be bought (`reason`: the error code, or `transport`): requests carry assertions until
    /// the retry policy's token cooldown has passed (for `session_tokens_not_enabled`, for the session).
    case sessionTokenUnavailable(reason: String)
    /// The device cannot attest and a debug token is configured: requests carry the debug token instead of App Attest.
    case debugTokenCarried
    /// A debug token is configured on a device that can attest, or in a release build for a device: it is ignored, and
    /// the client attests as usual.
    case debugTokenIgnored
}
