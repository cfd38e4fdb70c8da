public import AttestGuardWire
public import Foundation
#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// An iOS app's side of AttestGuard for one signed-in user: it keeps the user's App Attest key on this install
/// (generated and attested once, its id in the Keychain), signs requests with clientData v1 and sends them, with
/// the few retries that are safe. Create one when the user signs in and keep it for the session.
///
/// A user without a key attests one only when the app's rollout asks it (`attestation-required`, asked once a
/// session) or when a route answers `assertion_missing`: the rollout percentage limits how many devices call Apple's
/// `attestKey`, as Apple's gradual-rollout guidance asks.
///
/// With ``Configuration/sessionTokens``, requests carry a session token (bought with one assertion, held in memory,
/// renewed before it expires) instead of an assertion; a route that refuses a token with `assertion_missing` gets an
/// assertion, then and for the rest of the session.
///
/// ```swift
/// let client = AttestGuardClient(
///     configuration: .init(gateway: URL(string: "https://shop.example/attestguard/")!, user: session.userId),
///     provider: SystemAppAttestProvider(),
///     deviceCheck: SystemDeviceCheckTokenProvider(),
///     authorize: { request in request.setValue("Bearer \(session.token)", forHTTPHeaderField: "Authorization") }
/// )
/// let (data, response) = try await client.send(orderRequest)
/// ```
public struct AttestGuardClient: Sendable {
    /// What the app sets: where its gateway exposes AttestGuard, who is signed in, and how to attest.
    public struct Configuration: Sendable {
        /// The gateway's prefix of the app-facing routes (`https://shop.example/attestguard/`).
        public var gateway: URL
        /// The signed-in user, as the app knows them: the Keychain entry of the user's key is filed under it. The
        /// gateway authenticates the user itself; this never travels as identity.
        public var user: String
        /// `identifierForVendor`, so that a new key on this device replaces the user's previous one on the server.
        public var deviceId: String?
        /// What `attestKey` gets as `clientDataHash`; must match the app's setting on the server.
        public var hashConvention: AttestationHashConvention
        /// `serverUnavailable` retries.
        public var retry: RetryPolicy
        /// The clock of challenge expiry and retry waits.
        public var clock: any ClientClock
        /// Whether the app's server issues session tokens (`apps.<app>.sessionTokens.enabled`): requests then carry a
        /// token where the gateway's route accepts one, and an assertion where it asks for one.
        public var sessionTokens: Bool
        /// A debug token an admin made for this app (`attestguard debug-tokens create`), for Simulator builds and CI
        /// runners, which cannot attest: requests carry it instead of App Attest. It is used only by a Simulator or
        /// debug build, where the provider reports App Attest unsupported; a release build for a device and a device
        /// that can attest ignore it. Keep it out of release configurations all the same
        /// (`#if targetEnvironment(simulator)`); the server accepts it only for apps that allow debug tokens.
        public var debugToken: String?

        /// The settings of one signed-in user; the defaults suit an app (the `sha256` hash convention, the default
        /// retry policy, the system clock).
        public init(
            gateway: URL,
            user: String,
            deviceId: String? = nil,
            hashConvention: AttestationHashConvention = .sha256,
            retry: RetryPolicy = RetryPolicy(),
            clock: any ClientClock = SystemClientClock(),
            sessionTokens: Bool = false,
            debugToken: String? = nil
        ) {
            self.gateway = gateway
            self.user = user
            self.deviceId = deviceId
            self.hashConvention = hashConvention
            self.retry = retry
            self.clock = clock
            self.sessionTokens = sessionTokens
            self.debugToken = debugToken
        }
    }

    private let settings: ClientSettings
    private let keys: KeyLifecycle
    private let signer: RequestSigner
    private let advice: AttestationAdvice
    /// The session token, when the app's server issues them.
    private let tokens: SessionTokenHolder?
    /// The debug token, when one is configured.
    private let debugToken: DebugTokenCarrier?

    /// Makes the client of one signed-in user on this install; nothing is attested or sent until it is used.
    ///
    /// - Parameters:
    ///   - configuration: The app's settings.
    ///   - provider: App Attest (``SystemAppAttestProvider`` on a device).
    ///   - deviceCheck: DeviceCheck tokens for devices that cannot attest (``SystemDeviceCheckTokenProvider``).
    ///   - keyStore: Where the key id is kept (``KeychainKeyIdStore`` by default).
    ///   - transport: What sends requests (`URLSession.shared` by default).
    ///   - authorize: Adds the app's own authentication to the client's calls of the app-facing routes, as to any
    ///     request of the app: the gateway takes the user from it.
    ///   - onEvent: What the client did on its own (attestations, replaced keys, retries), for the app's logs.
    public init(
        configuration: Configuration,
        provider: any AppAttestProvider,
        deviceCheck: (any DeviceCheckTokenProvider)? = nil,
        keyStore: any KeyIdStore = KeychainKeyIdStore(),
        transport: any HTTPTransport = URLSessionTransport(),
        authorize: @escaping @Sendable (inout URLRequest) async throws -> Void = { _ in },
        onEvent: @escaping @Sendable (ClientEvent) -> Void = { _ in }
    ) {
        let settings = ClientSettings(
            provider: provider,
            deviceCheck: deviceCheck,
            keyStore: keyStore,
            routes: AppFacingClient(gateway: configuration.gateway, transport: transport, authorize: authorize),
            transport: transport,
            clock: configuration.clock,
            retry: configuration.retry,
            hashConvention: configuration.hashConvention,
            deviceId: configuration.deviceId,
            onEvent: onEvent
        )
        self.settings = settings
        self.keys = KeyLifecycle(account: configuration.user, settings: settings)
        self.advice = AttestationAdvice(routes: settings.routes)
        self.signer = RequestSigner(settings: settings, keys: keys, deviceCheck: SessionDeviceCheck(settings: settings), advice: advice)
        self.tokens = configuration.sessionTokens ? SessionTokenHolder(settings: settings) : nil
        self.debugToken = configuration.debugToken.map { DebugTokenCarrier(token: $0, settings: settings) }
    }

    /// Whether AttestGuard advises attesting this user now (the app's rollout): `{"attest": true|false}`. Advice
    /// only; the gateway's route policy decides what each request needs.
    public func attestationRequired() async throws -> Bool {
        try await settings.routes.attestationRequired()
    }

    /// Attests the user's key now, unless it is registered already or the rollout does not ask this user to attest
    /// yet (at sign-in, say, so that the first protected request does not wait for it). Returns the App Attest
    /// status requests will carry, or `nil` when the rollout does not ask for a key (requests then go as they are);
    /// throws why attestation failed (a refused registration, ``AttestGuardClientError/Code/hashConventionMismatch``,
    /// ...), after which requests go unattested until the retry policy's cooldown has passed.
    @discardableResult
    public func prepare() async throws -> AppAttestStatus? {
        if let debugToken, await debugToken.isCarried() { return nil }
        if try await !keys.hasRegisteredKey(), await !advice.attestNow() { return nil }
        switch try await keys.readyKey() {
        case .ready: return .supported
        case .unavailable(let status): return status
        }
    }

    /// `request` with its assertion headers (or, on a device that cannot attest, `X-AppAttest-Status`). The body
    /// must be `httpBody`, and the request must be sent as it is: another method, URL or body fails the check.
    public func signed(_ request: URLRequest) async throws -> URLRequest {
        if let debugToken, await debugToken.isCarried() { return debugToken.carrying(request).request }
        return try await signer.sign(request).request
    }

    /// Signs and sends `request` and returns the answer, the gateway's refusals included. It signs again once when
    /// the gateway refused the signature's challenge (`challenge_expired`, `challenge_used`,
    /// `assertion_already_accepted`), up to three times when a concurrent request of the same key was accepted
    /// with a higher counter first (`counter_not_increasing`), and attests a new key once on `key_not_found` or
    /// `key_superseded`: those answers come from the gateway, so the app's server never saw the request. A request
    /// that is not sent twice and meets `assertion_already_accepted` throws
    /// ``AttestGuardClientError/Code/mayHaveSucceeded``: a copy of it passed before. A request that went without a
    /// key (the rollout had not asked the user to attest) and was refused `assertion_missing` attests a key and is
    /// signed again, once. After a transport error it sends again only a request whose method is idempotent. A
    /// revoked key throws ``AttestGuardClientError/Code/keyRevoked``.
    ///
    /// With session tokens, a request carries the token where no route refused one yet: `assertion_missing` sends it
    /// again with an assertion (and the route gets assertions from then on), and a refused token
    /// (`session_token_expired`, `session_token_invalid`, ...) is dropped and the request sent once more with a new
    /// one.
    public func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        var signed = try await authenticated(request)
        var fellBackToAssertion = false
        var renewedToken = false
        var resignedForChallenge = false
        var resignedForCounter = 0
        var replacedKey = false
        var attestedOnDemand = false
        var resentAfterTransportError = false
        while true {
            let data: Data
            let response: HTTPURLResponse
            do {
                (data, response) = try await settings.transport.send(signed.request)
            } catch {
                if Task.isCancelled || (error as? URLError)?.code == .cancelled { throw error }
                guard Self.isIdempotent(request.httpMethod ?? "GET"), !resentAfterTransportError else {
                    throw AttestGuardClientError(.transport, "no response; a \(request.httpMethod ?? "GET") is not sent twice", underlying: error)
                }
                resentAfterTransportError = true
                signed = try await authenticated(request)
                continue
            }
            guard response.statusCode >= 400, response.value(forHTTPHeaderField: ServerAnswer.errorHeader) != nil else { return (data, response) }
            let answer = ServerAnswer(response: response, body: data)
            guard let code = answer.code else { return (data, response) }
            if let used = signed.sessionToken, let tokens, code == .keyRevoked || Self.keyRefusals.contains(code) {
                await tokens.discard(used)
            }
            if code == .keyRevoked {
                throw AttestGuardClientError(.keyRevoked, "AttestGuard revoked this device's key", answer: answer)
            } else if code == .assertionMissing, signed.sessionToken != nil, let tokens, !fellBackToAssertion {
                // The route asks for an assertion where a token went: one now, and on this route from now on.
                fellBackToAssertion = true
                await tokens.requireAssertions(for: request)
                settings.onEvent(.resigned(code: code))
                signed = try await signer.sign(request)
                continue
            } else if ServerErrorCode.sessionTokenRefusals.contains(code), let used = signed.sessionToken, let tokens, !renewedToken {
                renewedToken = true
                await tokens.discard(used)
            } else if code == .assertionMissing || code == .sessionTokenMissing, signed.keyId == nil, !attestedOnDemand, !carriesDebugToken(signed) {
                // The route requires an assertion the rollout had not asked for yet: attest now and sign.
                attestedOnDemand = true
                settings.onEvent(.resigned(code: code))
                signed = try await signer.sign(request, attesting: .now)
                continue
            } else if Self.challengeRefusals.contains(code), !resignedForChallenge {
                resignedForChallenge = true
            } else if code == .assertionAlreadyAccepted, !Self.isIdempotent(request.httpMethod ?? "GET"), !resignedForChallenge {
                // This very signature was accepted before: a copy of the request (a retry below the client, or a
                // first copy whose answer was lost) passed the gateway. It is not sent again, and not a failure.
                throw AttestGuardClientError(
                    .mayHaveSucceeded, "a copy of this \(request.httpMethod ?? "POST") was accepted before; check its effect before repeating it",
                    answer: answer
                )
            } else if code == .assertionAlreadyAccepted, !resignedForChallenge {
                // The same, for a request that may be sent twice: sent again with a new signature.
                resignedForChallenge = true
            } else if code == .counterNotIncreasing, resignedForCounter < Self.counterRaceResigns {
                // Requests signed at the same time reached the gateway out of order: a later assertion of this key
                // was accepted first. A new assertion has a higher counter than every earlier one.
                resignedForCounter += 1
            } else if Self.keyRefusals.contains(code), !replacedKey {
                replacedKey = true
                if let keyId = signed.keyId { try await keys.discard(keyId, reason: code.rawValue) }
            } else {
                return (data, response)
            }
            settings.onEvent(.resigned(code: code))
            signed = try await authenticated(request)
        }
    }

    /// `request` with the debug token where one is carried; else with a session token where it may carry one and one
    /// can be had; else signed with an assertion.
    private func authenticated(_ request: URLRequest) async throws -> RequestSigner.Signed {
        if let debugToken, await debugToken.isCarried() { return debugToken.carrying(request) }
        guard let tokens, await tokens.mayCarryToken(request) else { return try await signer.sign(request) }
        let signer = self.signer
        guard let token = await tokens.token(signingWith: { try await signer.sign($0) }) else { return try await signer.sign(request) }
        var carrying = request
        for header in AppAttestHeader.allCases { carrying.setValue(nil, forHTTPHeaderField: header.rawValue) }
        carrying.setValue(token.text, forHTTPHeaderField: AppAttestHeader.sessionToken.rawValue)
        return RequestSigner.Signed(request: carrying, keyId: token.keyId, sessionToken: token.text)
    }

    /// Whether `signed` went with the debug token: nothing the client can attest changes the answer.
    private func carriesDebugToken(_ signed: RequestSigner.Signed) -> Bool {
        debugToken != nil && signed.request.value(forHTTPHeaderField: AppAttestHeader.sessionToken.rawValue) == debugToken?.token
    }

    /// Refusals of the signature's challenge: a new signature passes.
    static let challengeRefusals: Set<ServerErrorCode> = [.challengeExpired, .challengeUsed]
    /// How many times one request is signed again after losing a counter race to a concurrent request of the key.
    static let counterRaceResigns = 3
    /// Refusals of the key AttestGuard does not hold (any more): a new key passes.
    static let keyRefusals: Set<ServerErrorCode> = [.keyNotFound, .keySuperseded]

    /// Methods RFC 9110 defines as idempotent: sending one twice has the effect of sending it once.
    static func isIdempotent(_ method: String) -> Bool {
        ["GET", "HEAD", "OPTIONS", "PUT", "DELETE"].contains(method.uppercased())
    }

    /// The same client sending through `transport` (the same key, session and settings).
    func sending(through transport: any HTTPTransport) -> AttestGuardClient {
        var settings = settings
        settings.transport = transport
        return AttestGuardClient(settings: settings, keys: keys, signer: signer, advice: advice, tokens: tokens, debugToken: debugToken)
    }

    private init(
        settings: ClientSettings, keys: KeyLifecycle, signer: RequestSigner, advice: AttestationAdvice, tokens: SessionTokenHolder?,
        debugToken: DebugTokenCarrier?
    ) {
        self.settings = settings
        self.keys = keys
        self.signer = signer
        self.advice = advice
        self.tokens = tokens
        self.debugToken = debugToken
    }
}

extension URLSession {
    /// Signs `request` with `client` and sends it through this session: ``AttestGuardClient/send(_:)``. The client's
    /// own calls (challenges, attestation) go through the transport it was made with: make it with
    /// `URLSessionTransport(session:)` of this session when all traffic must use it (a pinned session, say).
    public func data(for request: URLRequest, attestedBy client: AttestGuardClient) async throws -> (Data, HTTPURLResponse) {
        try await client.sending(through: URLSessionTransport(session: self)).send(request)
    }
}
