import AppleReceipts
import AttestCore
import DeviceSimulator
import Crypto
import Foundation
import Hummingbird

/// `POST /v1/attestationData`: redeems a receipt the way Apple's host for one environment does.
///
/// In order: provider token (401), body as base64 receipt that parses (400 "bad payload"), injected faults,
/// field 7 against the served environment (400 "incorrect environment"), a RECEIPT asked before its not-before
/// (304), a no-data token or an expired receipt (404); otherwise 200 with a RECEIPT minted by
/// ``SimulatedReceiptIssuer/refresh(_:riskMetric:at:)`` with the metric set for the token while the fake runs, else
/// the scenario's, tampered if the scenario says.
struct FakeAppleReceiptEndpoint: Sendable {
    let configuration: FakeAppleConfiguration
    let state: FakeAppleState
    let authenticator: FakeAppleAuthenticator
    let injector: FakeAppleFaultInjector

    static let maximumBodySize = 1 << 20

    func handle(_ request: Request, context: FakeAppleRequestContext) async throws -> Response {
        state.update {
            $0.totalRequests += 1
            $0.redemptionRequests += 1
        }
        if let failure = await authenticator.failure(authorization: request.headers[.authorization], scheme: .bare) {
            state.update { $0.unauthorized += 1 }
            return FakeAppleResponses.text(401, "Unauthorized: \(failure)")
        }
        guard let receipt = await Self.receipt(in: request) else {
            state.update { $0.badRequests += 1 }
            return FakeAppleResponses.text(400, "Missing or badly formatted receipt: bad payload")
        }
        let token = receipt.token ?? ""
        state.update { $0.tokens[token, default: FakeAppleStats.TokenStats()].requests += 1 }
        if let injected = try await injector.intercept(key: "receipt:\(token)", context: context) {
            return injected
        }
        let now = configuration.now()
        let served = ReceiptContents.environmentField(for: configuration.environment)
        if let environment = receipt.environment, environment != served {
            state.update { $0.incorrectEnvironment += 1 }
            return FakeAppleResponses.text(400, "Incorrect environment: a \(environment) receipt sent to the \(served) host")
        }
        if receipt.type == .receipt, let notBefore = receipt.notBefore, notBefore > now {
            state.update { $0.notModified += 1 }
            return FakeAppleResponses.empty(304)
        }
        let expired = receipt.expirationTime.map { $0 < now } ?? false
        if expired || configuration.scenario.hasNoData(token: token) {
            state.update { $0.noData += 1 }
            return FakeAppleResponses.text(404, "No data found")
        }
        let issuer = SimulatedReceiptIssuer(pki: configuration.pki)
        let metric = state.riskMetric(forToken: token) ?? configuration.scenario.riskMetric(forToken: token)
        var refreshed = issuer.refresh(receipt, riskMetric: metric, at: now)
        if configuration.scenario.isTampered(token: token), let tampered = tamper(refreshed, issuer: issuer) {
            refreshed = tampered
            state.recordInjected(.tampered)
        }
        state.update {
            $0.redeemed += 1
            $0.tokens[token, default: FakeAppleStats.TokenStats()].redeemed += 1
        }
        return FakeAppleResponses.text(200, Base64Text.encode(refreshed))
    }

    /// The receipt the body carries as base64 text, or `nil` for anything unreadable.
    static func receipt(in request: Request) async -> Receipt? {
        guard let buffer = try? await request.body.collect(upTo: maximumBodySize) else { return nil }
        guard let bytes = Base64Text.decodeBody(buffer.readableBytesView), !bytes.isEmpty,
            let envelope = try? ReceiptEnvelope(bytes),
            let receipt = try? Receipt(payload: envelope.content)
        else { return nil }
        return receipt
    }

    /// The same payload in Apple's envelope, signed by a key outside the PKI: it parses but never verifies.
    private func tamper(_ receipt: [UInt8], issuer: SimulatedReceiptIssuer) -> [UInt8]? {
        guard let content = try? ReceiptEnvelope(receipt).content,
            let signature = try? configuration.pki.keys.p256("fake-apple:tamper").signature(for: content)
        else { return nil }
        return issuer.envelope(payload: content, signature: Array(signature.derRepresentation))
    }
}
