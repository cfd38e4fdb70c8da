import AttestGuardWire
public import HTTPTypes

/// The header names forward-auth reads and writes: the protected request as the gateway describes it, the app's App
/// Attest headers (contract), and the verdict headers the gateway copies to the upstream.
public enum ForwardAuthHeaders {
    // The protected request, as nginx (`X-Original-*`) or Caddy and Traefik (`X-Forwarded-*`) name it.
    static let originalMethod = HTTPField.Name("X-Original-Method")!
    static let originalURI = HTTPField.Name("X-Original-URI")!
    static let forwardedMethod = HTTPField.Name("X-Forwarded-Method")!
    static let forwardedURI = HTTPField.Name("X-Forwarded-Uri")!

    // What the app sends with a protected request.
    static let appAttestKeyId = HTTPField.Name(AppAttestHeader.keyId.rawValue)!
    static let appAttestAssertion = HTTPField.Name(AppAttestHeader.assertion.rawValue)!
    static let appAttestClientData = HTTPField.Name(AppAttestHeader.clientData.rawValue)!
    static let appAttestStatus = HTTPField.Name(AppAttestHeader.status.rawValue)!
    static let appAttestToken = HTTPField.Name(AppAttestHeader.sessionToken.rawValue)!

    /// The precise outcome's status (`200`, `401`, `403`, `409`, `429`, `503`, ...), on every answer.
    public static let status = HTTPField.Name("X-AttestGuard-Status")!
    /// The error code of a refusal (401, 403), for a gateway that cannot pass the body on (plain `auth_request`).
    public static let error = HTTPField.Name("X-AttestGuard-Error")!
    /// `allow`, `review` or `deny`.
    public static let decision = HTTPField.Name("X-AttestGuard-Decision")!
    public static let score = HTTPField.Name("X-AttestGuard-Score")!
    /// The ids of the rules that fired, comma-separated, ASCII, at most ``reasonsLimit`` bytes.
    public static let reasons = HTTPField.Name("X-AttestGuard-Reasons")!
    /// The base64 key id of the assertion's key.
    public static let keyId = HTTPField.Name("X-AttestGuard-Key-Id")!
    public static let ruleSet = HTTPField.Name("X-AttestGuard-Rule-Set")!
    /// The body hash the app signed, for an upstream that checks the body itself (a gateway that cannot hash it).
    public static let bodySha256 = HTTPField.Name("X-AttestGuard-Body-Sha256")!
    /// How the assertion bound the request (`request.binding`: `v1`, `v1_without_body`, `legacy`, `session_token`, `none`).
    public static let binding = HTTPField.Name("X-AttestGuard-Binding")!
    /// What the route policy asked of the request: `require`, `token`, `score`, `open`, `require-for-rollout`.
    public static let protection = HTTPField.Name("X-AttestGuard-Protection")!
    /// In monitor mode, the error code enforcement would have refused a request with that passed anyway.
    public static let monitor = HTTPField.Name("X-AttestGuard-Monitor")!

    /// The bound on `X-AttestGuard-Reasons`, in bytes.
    static let reasonsLimit = 1_024

    /// The trusted gateway headers under a configured prefix.
    struct Trusted: Sendable {
        /// The user the gateway authenticated.
        let user: HTTPField.Name
        /// The client's address: the gateway's own peer address, never `X-Forwarded-For`.
        let clientIP: HTTPField.Name
        /// base64url SHA-256 of the body, where the gateway hashed it.
        let bodySha256: HTTPField.Name

        init(prefix: String) {
            // The prefix is checked at configuration (letters, digits, `-`), so each name is a valid token.
            user = HTTPField.Name(prefix + "User")!
            clientIP = HTTPField.Name(prefix + "Client-IP")!
            bodySha256 = HTTPField.Name(prefix + "Body-Sha256")!
        }
    }
}
