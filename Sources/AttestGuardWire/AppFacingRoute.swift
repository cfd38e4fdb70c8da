/// The app-facing routes as a gateway exposes them to apps (the shipped nginx and Caddy configurations, under
/// `/attestguard/`), and the AttestGuard route each reaches: the client names them by these constants.
public enum AppFacingRoute: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// `POST`: a challenge, `{purpose, keyId?}`.
    case challenges
    /// `POST`: register an attested key, `{keyId, attestation, challenge, deviceId?}`.
    case attestations
    /// `GET`: `{"attest": true|false}`.
    case attestationRequired = "attestation-required"
    /// `POST`: validate a DeviceCheck token, `{deviceToken}`.
    case deviceCheck = "devicecheck"
    /// `POST`: report an attestation attempt's outcome for the rollout, `{outcome, errorCode?}`.
    case attestationOutcomes = "attestation-outcomes"
    /// `POST`, signed with an assertion of this very request (empty body): a session token,
    /// `{token, expiresAt, expiresIn}`.
    case sessionTokens = "session-tokens"

    /// The path under the gateway's prefix (`challenges`).
    public var pathComponent: String { rawValue }

    /// The AttestGuard route the gateway calls (`/v1/app/challenges`).
    public var serverPath: String { "/v1/app/" + rawValue }

    public var description: String { rawValue }
}
