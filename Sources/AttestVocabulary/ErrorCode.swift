/// A stable, machine-readable reason a request or an object was refused: the `code` of every HTTP error body and
/// of every failed `attestguard verify` report.
///
/// This is the registry of those codes (problems in rule files have codes of their own, `RuleSetError.Code`), so
/// a misspelled code does not compile
/// and the OpenAPI document and `docs/reference/error-codes.md` can be checked against ``allCases``. The set may grow (a closed enum
/// would make every new code a breaking change): callers compare with the constants, `==` on the code, and
/// treat a code they do not know by its HTTP status. ``description`` is the code alone, safe to log.
///
/// Each module's own error keeps a closed subset (`VerificationError.Code`, `ReceiptError.Code`,
/// `StoreRejection.Code`, `DeviceCheckFailure.Code`), each member naming one of these.
public struct ErrorCode: Sendable, Hashable, CustomStringConvertible {
    private enum Storage: String, Sendable, CaseIterable {
        // Malformed requests (400, or the status named)
        case malformedRequest = "malformed_request"
        case malformedJSON = "malformed_json"
        case missingField = "missing_field"
        case invalidField = "invalid_field"
        case malformedBase64 = "malformed_base64"
        case invalidAttribute = "invalid_attribute"
        case unsupportedMediaType = "unsupported_media_type"
        case bodyTooLarge = "body_too_large"
        case methodNotAllowed = "method_not_allowed"
        case notFound = "not_found"
        case httpError = "http_error"
        case tooManyLabels = "too_many_labels"
        case listEntryInvalid = "list_entry_invalid"
        // Authentication (401, 403)
        case unauthorized = "unauthorized"
        case forbidden = "forbidden"
        // Forward-auth (the status its answer carries in X-AttestGuard-Status; 500 for the gateway's own key)
        case gatewayUnauthorized = "gateway_unauthorized"
        case assertionMissing = "assertion_missing"
        case sessionTokenMissing = "session_token_missing"
        case sessionTokenInvalid = "session_token_invalid"
        case sessionTokenExpired = "session_token_expired"
        case sessionTokenAppMismatch = "session_token_app_mismatch"
        case debugTokenInvalid = "debug_token_invalid"
        case debugTokenExpired = "debug_token_expired"
        case debugTokenRevoked = "debug_token_revoked"
        case userMissing = "user_missing"
        case routeNotCovered = "route_not_covered"
        case requestTargetRefused = "request_target_refused"
        case requestDenied = "request_denied"
        // Answered by the shipped gateway configurations, not by AttestGuard
        case attestguardUnavailable = "attestguard_unavailable"
        case gatewayHeaderForbidden = "gateway_header_forbidden"
        case gatewayError = "gateway_error"
        // Unknown things (404)
        case appNotFound = "app_not_found"
        case keyNotFound = "key_not_found"
        case rampNotConfigured = "ramp_not_configured"
        case sessionTokensNotEnabled = "session_tokens_not_enabled"
        case debugTokensNotEnabled = "debug_tokens_not_enabled"
        case debugTokenNotFound = "debug_token_not_found"
        case listNotFound = "list_not_found"
        case reviewItemNotFound = "review_item_not_found"
        case webhookEventNotFound = "webhook_event_not_found"
        // Conflicts with stored state (409)
        case challengeUsed = "challenge_used"
        case assertionAlreadyAccepted = "assertion_already_accepted"
        case keyAlreadyRegistered = "key_already_registered"
        case listAlreadyExists = "list_already_exists"
        case listFull = "list_full"
        case tooManyLists = "too_many_lists"
        case reviewItemClaimed = "review_item_claimed"
        case reviewItemClosed = "review_item_closed"
        // A precondition of the request no longer holds (412)
        case preconditionFailed = "precondition_failed"
        // Checks on stored state (422)
        case challengeNotFound = "challenge_not_found"
        case challengeExpired = "challenge_expired"
        case challengeMismatch = "challenge_mismatch"
        case keyRevoked = "key_revoked"
        case keySuperseded = "key_superseded"
        case keyUserMismatch = "key_user_mismatch"
        case environmentNotAllowed = "environment_not_allowed"
        case malformedClientData = "malformed_client_data"
        case requestBindingMismatch = "request_binding_mismatch"
        // The app's build policy (422)
        case validationCategoryNotAllowed = "validation_category_not_allowed"
        case bundleVersionBelowMinimum = "bundle_version_below_minimum"
        case authenticatorExtensionsMissing = "authenticator_extensions_missing"
        // App Attest verification (422)
        case malformedCBOR = "malformed_cbor"
        case malformedAttestation = "malformed_attestation"
        case unsupportedFormat = "unsupported_format"
        case malformedCertificate = "malformed_certificate"
        case malformedAuthenticatorData = "malformed_authenticator_data"
        case malformedAuthenticatorExtensions = "malformed_authenticator_extensions"
        case malformedPublicKey = "malformed_public_key"
        case malformedKeyId = "malformed_key_id"
        case malformedClientDataHash = "malformed_client_data_hash"
        case malformedNonceExtension = "malformed_nonce_extension"
        case chainInvalid = "chain_invalid"
        case nonceMismatch = "nonce_mismatch"
        case keyIdMismatch = "key_id_mismatch"
        case rpIdMismatch = "rp_id_mismatch"
        case counterNotZero = "counter_not_zero"
        case aaguidMismatch = "aaguid_mismatch"
        case credentialIdMismatch = "credential_id_mismatch"
        case receiptInvalid = "receipt_invalid"
        case malformedAssertion = "malformed_assertion"
        case malformedSignature = "malformed_signature"
        case signatureInvalid = "signature_invalid"
        case counterNotIncreasing = "counter_not_increasing"
        // Receipt verification
        case malformedReceipt = "malformed_receipt"
        case malformedReceiptPayload = "malformed_receipt_payload"
        case receiptFieldMissing = "receipt_field_missing"
        case receiptSignatureInvalid = "receipt_signature_invalid"
        case receiptChainInvalid = "receipt_chain_invalid"
        case receiptAppIdMismatch = "receipt_app_id_mismatch"
        case receiptPublicKeyMismatch = "receipt_public_key_mismatch"
        case receiptTypeMismatch = "receipt_type_mismatch"
        case receiptClientHashMismatch = "receipt_client_hash_mismatch"
        case receiptCreatedInFuture = "receipt_created_in_future"
        case receiptTooOld = "receipt_too_old"
        case receiptExpired = "receipt_expired"
        // Limits and availability (429, 502, 503, 500)
        case rateLimited = "rate_limited"
        case storeUnavailable = "store_unavailable"
        case devicecheckUnavailable = "devicecheck_unavailable"
        case internalError = "internal_error"
        // Apple's DeviceCheck answers
        case devicecheckBadRequest = "devicecheck_bad_request"
        case devicecheckUnauthorized = "devicecheck_unauthorized"
        case devicecheckForbidden = "devicecheck_forbidden"
        case devicecheckMethodNotAllowed = "devicecheck_method_not_allowed"
        case devicecheckThrottled = "devicecheck_throttled"
        case devicecheckServerError = "devicecheck_server_error"
        case devicecheckTimedOut = "devicecheck_timed_out"
        case devicecheckConnectionFailed = "devicecheck_connection_failed"
        case devicecheckUnexpectedResponse = "devicecheck_unexpected_response"
    }

    private let storage: Storage

    private init(_ storage: Storage) { self.storage = storage }

    /// The code by its text, as it stands in an error body; `nil` for text that is not a registered code.
    public init?(rawValue: String) {
        guard let storage = Storage(rawValue: rawValue) else { return nil }
        self.storage = storage
    }

    /// The snake_case text of the code, as the wire carries it.
    public var rawValue: String { storage.rawValue }

    public var description: String { storage.rawValue }

    /// Every registered code, in registry order.
    public static var allCases: [ErrorCode] { Storage.allCases.map(ErrorCode.init) }

    // MARK: Malformed requests (400, or the status named)

    /// The HTTP message itself is broken (a bad chunk size, an unsupported transfer coding, a body cut short): the
    /// server answers it, if the client is still there, and closes the connection.
    public static let malformedRequest = ErrorCode(.malformedRequest)
    /// The body is not valid JSON, or an object in it names a key twice.
    public static let malformedJSON = ErrorCode(.malformedJSON)
    /// A required field is absent or empty.
    public static let missingField = ErrorCode(.missingField)
    /// A field has the wrong type, length or range.
    public static let invalidField = ErrorCode(.invalidField)
    /// A binary field is not valid base64 or base64url, or has the wrong length.
    public static let malformedBase64 = ErrorCode(.malformedBase64)
    /// A request attribute does not have the type the rule set in force declares.
    public static let invalidAttribute = ErrorCode(.invalidAttribute)
    /// The body is not sent as `application/json` (415).
    public static let unsupportedMediaType = ErrorCode(.unsupportedMediaType)
    /// The body exceeds the configured limit (413).
    public static let bodyTooLarge = ErrorCode(.bodyTooLarge)
    /// The route does not take this method (405).
    public static let methodNotAllowed = ErrorCode(.methodNotAllowed)
    /// No route has this path (404).
    public static let notFound = ErrorCode(.notFound)
    /// Any other HTTP-level refusal, with the status the HTTP layer chose.
    public static let httpError = ErrorCode(.httpError)
    /// A batch of fraud labels (`POST /v1/labels`) carries more than the most one request may (1,000).
    public static let tooManyLabels = ErrorCode(.tooManyLabels)
    /// An entry of a run-time list is not of the list's kind (a `cidr` list takes IPv4 or IPv6 addresses and
    /// blocks), is empty or too long, or expires in the past; a CSV body names its line.
    public static let listEntryInvalid = ErrorCode(.listEntryInvalid)

    // MARK: Authentication (401, 403)

    /// No API key, or not a configured one (401).
    public static let unauthorized = ErrorCode(.unauthorized)
    /// The API key lacks the route's scope or may not touch the app (403).
    public static let forbidden = ErrorCode(.forbidden)

    // MARK: Forward-auth

    /// The gateway's own API key is missing, unknown or lacks the `gateway` scope (500: a gateway misconfiguration,
    /// never 401/403, so that no app re-attests over it).
    public static let gatewayUnauthorized = ErrorCode(.gatewayUnauthorized)
    /// The route requires an assertion and the request carries none (401).
    public static let assertionMissing = ErrorCode(.assertionMissing)
    /// A `token` route's request carries neither a session token nor an assertion (401): the app exchanges an
    /// assertion for a token (`POST /v1/app/session-tokens`) and sends it in `X-AppAttest-Token`.
    public static let sessionTokenMissing = ErrorCode(.sessionTokenMissing)
    /// The session token is not one of ours: not an ES256 JWT, a `kid` no published key has, or a signature that
    /// does not verify (401).
    public static let sessionTokenInvalid = ErrorCode(.sessionTokenInvalid)
    /// The session token is past its expiry (401): the app exchanges a new assertion for a new one.
    public static let sessionTokenExpired = ErrorCode(.sessionTokenExpired)
    /// The session token was issued for another app (401).
    public static let sessionTokenAppMismatch = ErrorCode(.sessionTokenAppMismatch)
    /// The debug token in `X-AppAttest-Token` is not one of the app's: malformed, unknown, or made for another app
    /// (401).
    public static let debugTokenInvalid = ErrorCode(.debugTokenInvalid)
    /// The debug token is past the expiry its admin gave it (401): an admin makes a new one.
    public static let debugTokenExpired = ErrorCode(.debugTokenExpired)
    /// An admin revoked the debug token (401).
    public static let debugTokenRevoked = ErrorCode(.debugTokenRevoked)
    /// The route requires an authenticated user and the gateway sent none (403).
    public static let userMissing = ErrorCode(.userMissing)
    /// No app's route policy owns the request's host and path (404, answered as 403).
    public static let routeNotCovered = ErrorCode(.routeNotCovered)
    /// The request-target holds a dot segment, a scheme inside its path or starts with `//`: the upstream could serve
    /// another path than the one the policy would decide on (400, answered as 403).
    public static let requestTargetRefused = ErrorCode(.requestTargetRefused)
    /// The verdict refused the request: `deny`, or `review` on a route that refuses reviews (403).
    public static let requestDenied = ErrorCode(.requestDenied)

    // MARK: Answered by the shipped gateway configurations

    /// The gateway could not reach AttestGuard, or AttestGuard did not answer in time; fail-closed (503, `Retry-After`).
    public static let attestguardUnavailable = ErrorCode(.attestguardUnavailable)
    /// The client sent a header under the trusted prefix that the gateway cannot delete (nginx with njs: 400).
    public static let gatewayHeaderForbidden = ErrorCode(.gatewayHeaderForbidden)
    /// The gateway cannot check the request: its own API key failed (`gateway_unauthorized`) or AttestGuard answered
    /// unexpectedly (500).
    public static let gatewayError = ErrorCode(.gatewayError)

    // MARK: Unknown things (404)

    /// No app with this id is configured.
    public static let appNotFound = ErrorCode(.appNotFound)
    /// No key with this id is registered for the app.
    public static let keyNotFound = ErrorCode(.keyNotFound)
    /// The app has no automatic attestation rollout ramp (`apps.<app>.ramp`) to resume.
    public static let rampNotConfigured = ErrorCode(.rampNotConfigured)
    /// The app issues no session tokens (`apps.<app>.sessionTokens.enabled`), or the server has no signing key.
    public static let sessionTokensNotEnabled = ErrorCode(.sessionTokensNotEnabled)
    /// The app accepts no debug tokens (`apps.<app>.debugTokens.enabled`): 404 from the debug-token admin routes,
    /// 401 in forward-auth for a request that carries one.
    public static let debugTokensNotEnabled = ErrorCode(.debugTokensNotEnabled)
    /// The app has no debug token with this id.
    public static let debugTokenNotFound = ErrorCode(.debugTokenNotFound)
    /// No run-time list has this name (404): `POST /v1/lists` creates one.
    public static let listNotFound = ErrorCode(.listNotFound)
    /// The app's review queue has no item with this id (404).
    public static let reviewItemNotFound = ErrorCode(.reviewItemNotFound)
    /// The webhook outbox holds no event with this id (404); delivered and given-up events are purged after the
    /// decision log's retention.
    public static let webhookEventNotFound = ErrorCode(.webhookEventNotFound)

    // MARK: Conflicts with stored state (409)

    /// The challenge was already consumed.
    public static let challengeUsed = ErrorCode(.challengeUsed)
    /// This key's assertion with this counter was already accepted.
    public static let assertionAlreadyAccepted = ErrorCode(.assertionAlreadyAccepted)
    /// The key is registered already, with another attestation.
    public static let keyAlreadyRegistered = ErrorCode(.keyAlreadyRegistered)
    /// A run-time list of this name exists already (409); its entries are replaced, added or removed instead.
    public static let listAlreadyExists = ErrorCode(.listAlreadyExists)
    /// The change would leave a run-time list with more entries than a list may hold (409); nothing changed.
    public static let listFull = ErrorCode(.listFull)
    /// The store holds as many run-time lists as it may (409): delete one first.
    public static let tooManyLists = ErrorCode(.tooManyLists)
    /// Another analyst claimed the review item less than half an hour ago (409): leave it to them, or wait.
    public static let reviewItemClaimed = ErrorCode(.reviewItemClaimed)
    /// The review item is decided or expired already (409); nothing changed.
    public static let reviewItemClosed = ErrorCode(.reviewItemClosed)
    /// A change named the revision it was made against (`If-Match`), and another change was stored since: read the
    /// resource again and redo the change on it.
    public static let preconditionFailed = ErrorCode(.preconditionFailed)

    // MARK: Checks on stored state (422)

    /// No challenge with this id was issued, or it was purged.
    public static let challengeNotFound = ErrorCode(.challengeNotFound)
    /// The challenge expired (beyond the clock-skew tolerance).
    public static let challengeExpired = ErrorCode(.challengeExpired)
    /// The challenge was issued for another app, purpose, user or key.
    public static let challengeMismatch = ErrorCode(.challengeMismatch)
    /// The key was revoked.
    public static let keyRevoked = ErrorCode(.keyRevoked)
    /// A newer key replaced this one on the same device.
    public static let keySuperseded = ErrorCode(.keySuperseded)
    /// The key belongs to another user.
    public static let keyUserMismatch = ErrorCode(.keyUserMismatch)
    /// The app does not accept keys of this environment.
    public static let environmentNotAllowed = ErrorCode(.environmentNotAllowed)
    /// The assertion's clientData is not in the app's format.
    public static let malformedClientData = ErrorCode(.malformedClientData)
    /// The assertion signed another request (method, path or body).
    public static let requestBindingMismatch = ErrorCode(.requestBindingMismatch)

    // MARK: The app's build policy (422)

    /// The running app's validation category (how it was distributed: App Store, TestFlight, development, ...) is
    /// not one the app allows in the key's environment.
    public static let validationCategoryNotAllowed = ErrorCode(.validationCategoryNotAllowed)
    /// The running app's bundle version is below the app's minimum, or is not a version.
    public static let bundleVersionBelowMinimum = ErrorCode(.bundleVersionBelowMinimum)
    /// The app requires iOS 27's authenticator-extension map from operating systems that send it, and the
    /// attestation or assertion lacks it (or lacks one of Apple's two keys).
    public static let authenticatorExtensionsMissing = ErrorCode(.authenticatorExtensionsMissing)

    // MARK: App Attest verification (422)

    /// The object is not well-formed CBOR.
    public static let malformedCBOR = ErrorCode(.malformedCBOR)
    /// The attestation object lacks `fmt`, `attStmt`, `x5c`, `receipt` or `authData`, or has wrong types.
    public static let malformedAttestation = ErrorCode(.malformedAttestation)
    /// `fmt` is not `apple-appattest`.
    public static let unsupportedFormat = ErrorCode(.unsupportedFormat)
    /// A certificate in `x5c` does not parse.
    public static let malformedCertificate = ErrorCode(.malformedCertificate)
    /// The authenticator data is too short or its attested credential data is malformed.
    public static let malformedAuthenticatorData = ErrorCode(.malformedAuthenticatorData)
    /// The bytes after the authenticator data (iOS 27's extension map) are not one bounded CBOR map of Apple's shape.
    public static let malformedAuthenticatorExtensions = ErrorCode(.malformedAuthenticatorExtensions)
    /// A public key is not a P-256 key.
    public static let malformedPublicKey = ErrorCode(.malformedPublicKey)
    /// A key id is not 32 bytes.
    public static let malformedKeyId = ErrorCode(.malformedKeyId)
    /// A clientDataHash is not 32 bytes.
    public static let malformedClientDataHash = ErrorCode(.malformedClientDataHash)
    /// The leaf lacks the nonce extension or it has the wrong shape.
    public static let malformedNonceExtension = ErrorCode(.malformedNonceExtension)
    /// The certificate chain does not lead to the pinned root at the verification instant.
    public static let chainInvalid = ErrorCode(.chainInvalid)
    /// The nonce in the leaf differs from SHA-256(authData ‖ clientDataHash).
    public static let nonceMismatch = ErrorCode(.nonceMismatch)
    /// SHA-256 of the leaf's public key differs from the key id.
    public static let keyIdMismatch = ErrorCode(.keyIdMismatch)
    /// The RP ID hash is not SHA-256 of the app id.
    public static let rpIdMismatch = ErrorCode(.rpIdMismatch)
    /// An attestation's counter is not 0.
    public static let counterNotZero = ErrorCode(.counterNotZero)
    /// The aaguid names an environment the request does not accept.
    public static let aaguidMismatch = ErrorCode(.aaguidMismatch)
    /// The credential id differs from the key id.
    public static let credentialIdMismatch = ErrorCode(.credentialIdMismatch)
    /// The attestation's receipt failed verification (the detail names the receipt's own code).
    public static let receiptInvalid = ErrorCode(.receiptInvalid)
    /// The assertion object lacks `signature` or `authenticatorData`, or has wrong types.
    public static let malformedAssertion = ErrorCode(.malformedAssertion)
    /// The signature is not a DER ECDSA signature.
    public static let malformedSignature = ErrorCode(.malformedSignature)
    /// The signature does not verify with the key.
    public static let signatureInvalid = ErrorCode(.signatureInvalid)
    /// The assertion's counter is not greater than the stored counter.
    public static let counterNotIncreasing = ErrorCode(.counterNotIncreasing)

    // MARK: Receipt verification

    /// The receipt is not a CMS SignedData envelope of Apple's shape.
    public static let malformedReceipt = ErrorCode(.malformedReceipt)
    /// The receipt's payload is not a set of well-formed fields.
    public static let malformedReceiptPayload = ErrorCode(.malformedReceiptPayload)
    /// A required receipt field is absent.
    public static let receiptFieldMissing = ErrorCode(.receiptFieldMissing)
    /// The receipt's signature does not verify.
    public static let receiptSignatureInvalid = ErrorCode(.receiptSignatureInvalid)
    /// The receipt's certificate chain does not lead to Apple Root CA - G3.
    public static let receiptChainInvalid = ErrorCode(.receiptChainInvalid)
    /// The receipt names another app.
    public static let receiptAppIdMismatch = ErrorCode(.receiptAppIdMismatch)
    /// The receipt names another public key.
    public static let receiptPublicKeyMismatch = ErrorCode(.receiptPublicKeyMismatch)
    /// The receipt is not of the expected type.
    public static let receiptTypeMismatch = ErrorCode(.receiptTypeMismatch)
    /// The receipt's client hash differs from the attestation's.
    public static let receiptClientHashMismatch = ErrorCode(.receiptClientHashMismatch)
    /// The receipt was created after the verification instant (beyond the skew).
    public static let receiptCreatedInFuture = ErrorCode(.receiptCreatedInFuture)
    /// The receipt is older than allowed.
    public static let receiptTooOld = ErrorCode(.receiptTooOld)
    /// The receipt has expired.
    public static let receiptExpired = ErrorCode(.receiptExpired)

    // MARK: Limits and availability (429, 502, 503, 500)

    /// Too many requests; retry after `Retry-After` (429).
    public static let rateLimited = ErrorCode(.rateLimited)
    /// The database did not answer; retry after `Retry-After` (503).
    public static let storeUnavailable = ErrorCode(.storeUnavailable)
    /// DeviceCheck is not configured: the server has no Apple credentials (503).
    public static let devicecheckUnavailable = ErrorCode(.devicecheckUnavailable)
    /// A fault in the server itself (500); the message names the request id.
    public static let internalError = ErrorCode(.internalError)

    // MARK: Apple's DeviceCheck answers

    /// Apple refused the device token, bits, timestamp or payload (422).
    public static let devicecheckBadRequest = ErrorCode(.devicecheckBadRequest)
    /// Apple refused the server's provider token (502).
    public static let devicecheckUnauthorized = ErrorCode(.devicecheckUnauthorized)
    /// Apple answered 403 (502).
    public static let devicecheckForbidden = ErrorCode(.devicecheckForbidden)
    /// Apple answered 405 (502).
    public static let devicecheckMethodNotAllowed = ErrorCode(.devicecheckMethodNotAllowed)
    /// Apple throttled the server's requests (429).
    public static let devicecheckThrottled = ErrorCode(.devicecheckThrottled)
    /// Apple answered with a 5xx (503).
    public static let devicecheckServerError = ErrorCode(.devicecheckServerError)
    /// Apple did not answer before the request deadline (503).
    public static let devicecheckTimedOut = ErrorCode(.devicecheckTimedOut)
    /// The connection to Apple could not be made or broke (503).
    public static let devicecheckConnectionFailed = ErrorCode(.devicecheckConnectionFailed)
    /// Apple answered with an undocumented status or an unreadable body (502).
    public static let devicecheckUnexpectedResponse = ErrorCode(.devicecheckUnexpectedResponse)
}
