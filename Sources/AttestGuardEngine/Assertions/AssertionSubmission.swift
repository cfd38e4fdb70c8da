public import Foundation
public import AttestVocabulary
public import AttestGuardWire

/// The protected request an assertion authorises, as the gateway received it.
public struct AssertedRequest: Sendable, Hashable, Codable {
    /// A custom attribute value the gateway passes for the rule engine (the wire's form).
    public typealias Attribute = ScalarValue

    public var method: String
    public var path: String
    /// base64url SHA-256 of the exact request body; `nil` when the gateway cannot hash the body (Caddy): the
    /// method and path are still checked, the body is not, and the binding is reported as such.
    public var bodySha256: String?
    /// The client's address as the gateway saw it (canonical: see ``ClientIP``).
    public var ip: ClientIP?
    public var action: String?
    public var attributes: [String: Attribute]?

    public init(
        method: String,
        path: String,
        bodySha256: String?,
        ip: ClientIP? = nil,
        action: String? = nil,
        attributes: [String: Attribute]? = nil
    ) {
        self.method = method
        self.path = path
        self.bodySha256 = bodySha256
        self.ip = ip
        self.action = action
        self.attributes = attributes
    }
}

/// An assertion as the caller submits it (already decoded from the wire).
public struct AssertionSubmission: Sendable, Hashable {
    public var appId: String
    public var keyId: KeyId
    public var assertion: Data
    /// The exact bytes the app signed.
    public var clientData: Data
    public var userId: Identifier
    public var request: AssertedRequest
    /// The HTTP request's id, logged with the verdict (a label names the decision by it).
    public var requestId: String?

    public init(appId: String, keyId: KeyId, assertion: Data, clientData: Data, userId: Identifier, request: AssertedRequest) {
        self.appId = appId
        self.keyId = keyId
        self.assertion = assertion
        self.clientData = clientData
        self.userId = userId
        self.request = request
    }
}

/// An accepted assertion.
public struct AssertionResult: Sendable, Hashable {
    public enum RequestBinding: String, Sendable, Hashable {
        /// clientData v1 matched the request's method, path and body hash.
        case verified
        /// clientData v1 matched the request's method and path; the gateway could not hash the body, so the body
        /// the app signed (``AssertionResult/signedBodySha256``) is for the upstream to check.
        case verifiedWithoutBody = "verified_without_body"
        /// A legacy clientData format: the request was not bound.
        case notChecked = "not_checked"

        /// The `request.binding` signal the rules read for an assertion bound this way.
        public var signal: RequestBindingSignal {
            switch self {
            case .verified: .v1
            case .verifiedWithoutBody: .v1WithoutBody
            case .notChecked: .legacy
            }
        }
    }

    public var keyId: Data
    public var counter: Int64
    public var clientDataFormat: String
    public var requestBinding: RequestBinding
    /// The body hash the app signed (clientData v1), for an upstream that checks the body itself.
    public var signedBodySha256: String?
    public var verdict: RiskVerdict
    /// The environment the key was attested in.
    public var environment: AppAttestEnvironment = .production
}
