import AttestGuardWire
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// This client's session token: bought with one assertion at `<gateway>/session-tokens`, held in memory only (a bearer
/// credential that lives minutes is never written to UserDefaults or the Keychain), and bought again once less than a
/// fifth of its life (at most a minute) is left. Concurrent requests share one exchange.
///
/// A failing server is never asked in a loop: after a failed exchange, requests carry assertions until
/// ``RetryPolicy/sessionTokenCooldown`` has passed, and a server that issues no tokens (`session_tokens_not_enabled`)
/// is not asked again in this session. Routes that answered `assertion_missing` to a token are remembered and get
/// assertions for the rest of the session.
actor SessionTokenHolder {
    /// A token as held.
    struct Token: Sendable, Equatable {
        var text: String
        /// The key whose assertion bought it.
        var keyId: String
        /// Its expiry on this device's clock (received plus `expiresIn`), so that a device clock set wrong is no matter.
        var expiresAt: Date
        /// When to buy the next one.
        var renewAt: Date
    }

    private let settings: ClientSettings
    private var current: Token?
    private var exchanging: Task<Token?, Never>?
    /// No exchange before this instant (a failed one, or a device that cannot attest now).
    private var quietUntil: Date?
    private var serverIssuesNone = false
    /// `METHOD path` of the routes that refused a token with `assertion_missing`.
    private var assertionRoutes: Set<String> = []

    init(settings: ClientSettings) {
        self.settings = settings
    }

    /// Whether `request` goes with a token at all: not to a route that asked for an assertion, nor to a server that
    /// issues none.
    func mayCarryToken(_ request: URLRequest) -> Bool {
        !serverIssuesNone && !assertionRoutes.contains(Self.route(of: request))
    }

    /// Remembers that `request`'s route wants assertions (it refused a token with `assertion_missing`).
    func requireAssertions(for request: URLRequest) {
        assertionRoutes.insert(Self.route(of: request))
    }

    /// Drops `token` (the gateway refused it, or its key was replaced), so that the next request buys another.
    func discard(_ token: String) {
        if current?.text == token { current = nil }
    }

    /// A token to send now: the one held while it is fresh, else a new one bought with an assertion `sign` makes.
    /// `nil`: send an assertion (no key, a failed exchange within the cooldown, a server that issues none).
    func token(signingWith sign: @escaping @Sendable (URLRequest) async throws -> RequestSigner.Signed) async -> Token? {
        let now = settings.clock.now()
        if let current, now < current.renewAt { return current }
        // Past its renewal point a token still serves until it expires, while no exchange may be made.
        let stillValid = current.flatMap { now < $0.expiresAt ? $0 : nil }
        if serverIssuesNone { return nil }
        if let quietUntil, now < quietUntil { return stillValid }
        if let exchanging { return await exchanging.value ?? stillValid }
        let task = Task { await self.exchange(sign) }
        exchanging = task
        let bought = await task.value
        exchanging = nil
        return bought ?? stillValid
    }

    /// One exchange; records its outcome.
    private func exchange(_ sign: @escaping @Sendable (URLRequest) async throws -> RequestSigner.Signed) async -> Token? {
        let signedBy = KeyHolder()
        do {
            let body = try await settings.routes.sessionToken(signedBy: { request in
                let signed = try await sign(request)
                guard let keyId = signed.keyId else { throw NoKey() }
                await signedBy.set(keyId)
                return signed.request
            })
            guard let keyId = await signedBy.keyId, body.expiresIn > 0, !body.token.isEmpty else {
                throw AttestGuardClientError(.unexpectedResponse, "session-tokens answered a token without a lifetime")
            }
            let received = settings.clock.now()
            let lifetime = Double(body.expiresIn)
            let token = Token(
                text: body.token, keyId: keyId, expiresAt: received.addingTimeInterval(lifetime),
                renewAt: received.addingTimeInterval(lifetime - min(60, lifetime / 5))
            )
            current = token
            quietUntil = nil
            settings.onEvent(.sessionTokenIssued(expiresIn: body.expiresIn))
            return token
        } catch is NoKey {
            // The user has no key yet (the rollout has not asked) or cannot attest now: assertions decide, and the
            // key lifecycle attests when a route asks for one.
            quietUntil = settings.clock.now().addingTimeInterval(settings.retry.sessionTokenCooldown)
            return nil
        } catch let error as AttestGuardClientError where error.answer?.code == .sessionTokensNotEnabled {
            serverIssuesNone = true
            settings.onEvent(.sessionTokenUnavailable(reason: ServerErrorCode.sessionTokensNotEnabled.rawValue))
            return nil
        } catch {
            quietUntil = settings.clock.now().addingTimeInterval(settings.retry.sessionTokenCooldown)
            let reason = (error as? AttestGuardClientError)?.answer?.code?.rawValue ?? (error as? AttestGuardClientError)?.code.description ?? "transport"
            settings.onEvent(.sessionTokenUnavailable(reason: reason))
            return nil
        }
    }

    /// The key the exchange was signed with, as the signing closure learns it.
    private actor KeyHolder {
        var keyId: String?
        func set(_ keyId: String) { self.keyId = keyId }
    }

    /// The exchange could not be signed with a key.
    private struct NoKey: Error {}

    /// `METHOD path`, the path without its query: what the gateway's route policy decides by.
    static func route(of request: URLRequest) -> String {
        "\((request.httpMethod ?? "GET").uppercased()) \(request.url?.path ?? "/")"
    }
}
