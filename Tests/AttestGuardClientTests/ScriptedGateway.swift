import AttestGuardClient
import AttestGuardClientTesting
import AttestGuardWire
import AttestTestSupport
import AttestCore
import DeviceSimulator
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization
import Testing

/// A gateway for the client's rules, answering from a script: the app-facing routes answer as AttestGuard does
/// (challenges, registrations, refusals the test queues), and every other request is answered by the next scripted
/// answer for it, or 200. It records what it was sent. Verification itself is the end-to-end tests' business
/// (`ClientThroughNginxTests`): here the point is what the client does with each answer.
final class ScriptedGateway: HTTPTransport {
    /// A scripted answer: an HTTP status with an optional error code, as the gateway (header) or an upstream
    /// (body only) sends it, or no response at all.
    enum Answer: Sendable {
        case status(Int)
        case refusal(Int, code: String)
        case upstreamError(Int, code: String)
        case transportFailure
    }

    static let base = URL(string: "https://shop.example/attestguard/")!

    private struct State {
        var sent: [URLRequest] = []
        var protectedAnswers: [Answer] = []
        var attestationAnswers: [Answer] = []
        var tokenAnswers: [Answer] = []
        var tokensIssued = 0
        /// The `expiresIn` of the session tokens it issues.
        var tokenLifetime = 600
        var challengesIssued: [String] = []
        var refuseOutcomeReports = false
        /// What `attestation-required` answers (the app's rollout for the user).
        var attest = true
    }

    private let state = Mutex(State())

    /// Queues answers for the protected requests, in order.
    func answerProtected(_ answers: Answer...) { state.withLock { $0.protectedAnswers += answers } }
    /// Queues answers for `POST attestations`, in order.
    func answerAttestations(_ answers: Answer...) { state.withLock { $0.attestationAnswers += answers } }
    /// Queues answers for `POST session-tokens`, in order (201 with a new token `token-N` when none is queued).
    func answerSessionTokens(_ answers: Answer...) { state.withLock { $0.tokenAnswers += answers } }
    /// Sets the lifetime of the session tokens it issues.
    func issueTokens(lasting seconds: Int) { state.withLock { $0.tokenLifetime = seconds } }
    /// The session-token exchanges the client asked for.
    var exchanges: [URLRequest] { sent.filter { $0.url?.lastPathComponent == AppFacingRoute.sessionTokens.pathComponent } }

    /// Sets what `attestation-required` answers.
    func advise(attest: Bool) { state.withLock { $0.attest = attest } }

    /// Answers every outcome report with a transport failure.
    func failOutcomeReports() { state.withLock { $0.refuseOutcomeReports = true } }

    /// The challenges issued, in order.
    var challenges: [String] { state.withLock { $0.challengesIssued } }
    /// Everything the client sent, in order.
    var sent: [URLRequest] { state.withLock { $0.sent } }
    /// The protected requests (anything but the app-facing routes) the client sent.
    var protected: [URLRequest] { sent.filter { !($0.url?.absoluteString.hasPrefix(Self.base.absoluteString) ?? false) } }
    /// The attestations the client registered.
    var attestations: [URLRequest] { sent.filter { $0.url?.lastPathComponent == AppFacingRoute.attestations.pathComponent } }

    /// The attestation outcomes the client reported, in order.
    var outcomes: [AttestationOutcomeReport] {
        sent.filter { $0.url?.lastPathComponent == AppFacingRoute.attestationOutcomes.pathComponent }
            .compactMap { $0.httpBody.flatMap { try? JSONDecoder().decode(AttestationOutcomeReport.self, from: $0) } }
    }

    func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        let url = try #require(request.url)
        let answer: Answer = state.withLock { state in
            state.sent.append(request)
            if url.absoluteString.hasPrefix(Self.base.absoluteString) {
                switch url.lastPathComponent {
                case AppFacingRoute.challenges.pathComponent:
                    return .status(201)
                case AppFacingRoute.attestations.pathComponent:
                    return state.attestationAnswers.isEmpty ? .status(201) : state.attestationAnswers.removeFirst()
                case AppFacingRoute.attestationOutcomes.pathComponent:
                    return state.refuseOutcomeReports ? .transportFailure : .status(204)
                case AppFacingRoute.sessionTokens.pathComponent:
                    return state.tokenAnswers.isEmpty ? .status(201) : state.tokenAnswers.removeFirst()
                default:
                    return .status(200)
                }
            }
            return state.protectedAnswers.isEmpty ? .status(200) : state.protectedAnswers.removeFirst()
        }
        switch answer {
        case .status(let status) where url.lastPathComponent == AppFacingRoute.challenges.pathComponent:
            let challenge = Base64Text.urlEncoded((0..<32).map { _ in UInt8.random(in: 0...255) })
            state.withLock { $0.challengesIssued.append(challenge) }
            let expiresAt = ISO8601DateFormatter().string(from: Date().addingTimeInterval(300))
            return (Data(#"{"challenge":"\#(challenge)","purpose":"assertion","expiresAt":"\#(expiresAt)"}"#.utf8), response(url, status: status))
        case .transportFailure:
            throw URLError(.networkConnectionLost)
        case .status(let status):
            return (body(for: url, status: status), response(url, status: status))
        case .refusal(let status, let code):
            return (Self.errorBody(code), response(url, status: status, headers: [ServerAnswer.errorHeader: code]))
        case .upstreamError(let status, let code):
            return (Self.errorBody(code), response(url, status: status))
        }
    }

    private func body(for url: URL, status: Int) -> Data {
        switch url.lastPathComponent {
        case AppFacingRoute.attestationRequired.pathComponent:
            return Data(#"{"attest":\#(state.withLock { $0.attest })}"#.utf8)
        case AppFacingRoute.attestations.pathComponent:
            return Data(#"{"keyId":"k","idempotent":false}"#.utf8)
        case AppFacingRoute.sessionTokens.pathComponent:
            let (number, lifetime) = state.withLock { state in
                state.tokensIssued += 1
                return (state.tokensIssued, state.tokenLifetime)
            }
            let expiresAt = ISO8601DateFormatter().string(from: Date().addingTimeInterval(Double(lifetime)))
            return Data(#"{"token":"token-\#(number)","expiresAt":"\#(expiresAt)","expiresIn":\#(lifetime)}"#.utf8)
        default:
            return Data("ok".utf8)
        }
    }

    private func response(_ url: URL, status: Int, headers: [String: String] = [:]) -> HTTPURLResponse {
        HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers)!
    }

    static func errorBody(_ code: String) -> Data {
        Data(#"{"error":{"code":"\#(code)","message":"scripted"}}"#.utf8)
    }
}

/// A client on a software device against a ``ScriptedGateway``.
final class ScriptedClient: Sendable {
    let gateway = ScriptedGateway()
    let provider: SimulatedAppAttestProvider
    let keyStore = InMemoryKeyIdStore()
    let clock = InstantClientClock()

    init(supported: Bool = true) {
        provider = SimulatedAppAttestProvider(
            device: SimulatedDevice(pki: SimulatorFixtures.pki, identifier: "scripted-phone", environment: .development),
            app: AppIdentity(appId: "ABCDE12345.com.example.attestguard"),
            supported: supported
        )
    }

    func client(
        hashConvention: AttestationHashConvention = .sha256, retry: RetryPolicy = RetryPolicy(), sessionTokens: Bool = false, debugToken: String? = nil,
        onEvent: @escaping @Sendable (ClientEvent) -> Void = { _ in }
    ) -> AttestGuardClient {
        AttestGuardClient(
            configuration: .init(
                gateway: ScriptedGateway.base, user: "alice", hashConvention: hashConvention, retry: retry, clock: clock, sessionTokens: sessionTokens,
                debugToken: debugToken
            ),
            provider: provider,
            keyStore: keyStore,
            transport: gateway,
            onEvent: onEvent
        )
    }

    static func request(_ method: String, _ path: String = "/api/orders?id=1", body: String? = #"{"item":"sku-1"}"#) -> URLRequest {
        var request = URLRequest(url: URL(string: "https://shop.example\(path)")!)
        request.httpMethod = method
        request.httpBody = body.map { Data($0.utf8) }
        return request
    }
}
