/// The error codes of AttestGuard and its gateway that the client acts on or names, as they travel in
/// `X-AttestGuard-Error` and the JSON error body. The client links nothing of the server: a test holds each of
/// these equal to an entry of the server's registry.
public struct ServerErrorCode: Sendable, Hashable, CustomStringConvertible {
    /// The code as sent.
    public let rawValue: String

    /// The code as sent, whether or not the client acts on it.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// The challenge the request was signed over expired before the gateway checked it: sign again.
    public static let challengeExpired = ServerErrorCode(rawValue: "challenge_expired")
    /// The challenge was already spent: sign again.
    public static let challengeUsed = ServerErrorCode(rawValue: "challenge_used")
    /// This very assertion was accepted before (a resent request): sign again.
    public static let assertionAlreadyAccepted = ServerErrorCode(rawValue: "assertion_already_accepted")
    /// A concurrent request of the same key was accepted with a higher counter first: sign again.
    public static let counterNotIncreasing = ServerErrorCode(rawValue: "counter_not_increasing")
    /// AttestGuard does not know the key: attest a new one.
    public static let keyNotFound = ServerErrorCode(rawValue: "key_not_found")
    /// A newer key of the same user and device replaced this one: attest a new one.
    public static let keySuperseded = ServerErrorCode(rawValue: "key_superseded")
    /// The key was revoked: final, surfaced to the app.
    public static let keyRevoked = ServerErrorCode(rawValue: "key_revoked")
    /// The attestation's nonce is not what the server computes: often the other clientDataHash convention.
    public static let nonceMismatch = ServerErrorCode(rawValue: "nonce_mismatch")
    /// The route needs an assertion and the request had none (or only a session token).
    public static let assertionMissing = ServerErrorCode(rawValue: "assertion_missing")
    /// A `token` route and the request had neither a session token nor an assertion.
    public static let sessionTokenMissing = ServerErrorCode(rawValue: "session_token_missing")
    /// The session token is not one the server issued (or no longer publishes the key of): get a new one.
    public static let sessionTokenInvalid = ServerErrorCode(rawValue: "session_token_invalid")
    /// The session token expired: get a new one.
    public static let sessionTokenExpired = ServerErrorCode(rawValue: "session_token_expired")
    /// The session token was issued for another app: get a new one.
    public static let sessionTokenAppMismatch = ServerErrorCode(rawValue: "session_token_app_mismatch")
    /// The key (or its session token) belongs to another user than the gateway's: get a new token.
    public static let keyUserMismatch = ServerErrorCode(rawValue: "key_user_mismatch")
    /// The app's server issues no session tokens: the client sends assertions for the rest of the session.
    public static let sessionTokensNotEnabled = ServerErrorCode(rawValue: "session_tokens_not_enabled")
    /// The debug token is not one of the app's (mistyped, or made for another app): final, surfaced to the app.
    public static let debugTokenInvalid = ServerErrorCode(rawValue: "debug_token_invalid")
    /// The debug token expired: final; an admin makes a new one (`attestguard debug-tokens create`).
    public static let debugTokenExpired = ServerErrorCode(rawValue: "debug_token_expired")
    /// An admin revoked the debug token: final.
    public static let debugTokenRevoked = ServerErrorCode(rawValue: "debug_token_revoked")
    /// The app's server accepts no debug tokens (`apps.<app>.debugTokens.enabled`): final.
    public static let debugTokensNotEnabled = ServerErrorCode(rawValue: "debug_tokens_not_enabled")
    /// The app's build policy refuses how this build was distributed (a development or re-signed build where only
    /// App Store and TestFlight builds are allowed): final for this build, surfaced to the app.
    public static let validationCategoryNotAllowed = ServerErrorCode(rawValue: "validation_category_not_allowed")
    /// The app's build policy requires a newer bundle version: final for this build; the app can ask its user to
    /// update.
    public static let bundleVersionBelowMinimum = ServerErrorCode(rawValue: "bundle_version_below_minimum")
    /// The app's build policy requires iOS 27's authenticator-extension map and the attestation or assertion lacked
    /// it: final for this build.
    public static let authenticatorExtensionsMissing = ServerErrorCode(rawValue: "authenticator_extensions_missing")

    /// The build policy's refusals: after one at attestation the client attests no more in this process, since a
    /// new key of the same build is refused the same way.
    public static let buildRefusals: Set<ServerErrorCode> = [.validationCategoryNotAllowed, .bundleVersionBelowMinimum, .authenticatorExtensionsMissing]

    /// Refusals of a session token that a new token may pass: the client drops the token and gets another, once.
    public static let sessionTokenRefusals: Set<ServerErrorCode> = [.sessionTokenInvalid, .sessionTokenExpired, .sessionTokenAppMismatch, .keyUserMismatch]

    /// Every code above.
    public static let all: [ServerErrorCode] = [
        .challengeExpired, .challengeUsed, .assertionAlreadyAccepted, .counterNotIncreasing, .keyNotFound, .keySuperseded, .keyRevoked,
        .nonceMismatch, .assertionMissing, .sessionTokenMissing, .sessionTokenInvalid, .sessionTokenExpired, .sessionTokenAppMismatch,
        .keyUserMismatch, .sessionTokensNotEnabled, .validationCategoryNotAllowed, .bundleVersionBelowMinimum, .authenticatorExtensionsMissing,
        .debugTokenInvalid, .debugTokenExpired, .debugTokenRevoked, .debugTokensNotEnabled,
    ]

    public var description: String { rawValue }
}
