/// The headers an app sends with a protected request (contract, "Assertion clientData, format v1"): the app's client
/// writes them and forward-auth reads them, by these names.
public enum AppAttestHeader: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// The key id, base64.
    case keyId = "X-AppAttest-KeyId"
    /// The assertion object, base64.
    case assertion = "X-AppAttest-Assertion"
    /// The signed clientData bytes, base64url.
    case clientData = "X-AppAttest-ClientData"
    /// The app's own App Attest status (`supported`, `unsupported`, `throttled`, `failed`): a scoring signal, never
    /// a replacement for an assertion.
    case status = "X-AppAttest-Status"
    /// A session token (`POST /v1/app/session-tokens`), on `token` routes in place of an assertion.
    case sessionToken = "X-AppAttest-Token"

    public var description: String { rawValue }
}
