/// How an assertion is bound to the request it authorises, as the rules read it (`request.binding`): a request with
/// `v1_without_body` was checked for its method and path but not its body (the gateway could not hash it), so rules
/// guarding a body-sensitive action can weigh it.
public enum RequestBindingSignal: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// clientData v1 matched the method, path and body hash.
    case v1
    /// clientData v1 matched the method and path; the body was not hashed by the gateway.
    case v1WithoutBody = "v1_without_body"
    /// The app's own clientData shape: only the challenge is checked.
    case legacy
    /// A session token stood for an assertion on a `token` route: the key was attested when the token was issued; the
    /// request itself is not signed.
    case sessionToken = "session_token"
    /// A debug token stood for an assertion (the iOS Simulator, a CI runner): no device was attested and nothing is
    /// signed.
    case debugToken = "debug_token"
    /// No assertion came with the request.
    case none

    public var description: String { rawValue }
}
