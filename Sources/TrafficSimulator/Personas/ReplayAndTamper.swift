import AttestCore
import Crypto
import Foundation

/// A replayer sends an assertion the server accepted a second time; the replay is checked.
enum Replayer {
    static func play(_ context: TrafficContext) async throws -> [ObservedOutcome] {
        var app = context.app(.replayer, name: "replayer", ip: context.settings.clientAddress(host: 3))
        _ = try await app.attest()
        let payload = try await app.signAssertion(action: "purchase")
        let first = try await app.send(payload)
        guard first.succeeded else { throw PersonaStepFailure(step: "first submission", outcome: first.outcome) }
        return [try await app.send(payload).outcome]
    }
}

/// A tamperer changes the request body after the app signed its clientData (a bigger order, say): the gateway
/// hashes the body it actually received, which differs from the signed one. That submission is checked.
enum Tamperer {
    static func play(_ context: TrafficContext) async throws -> [ObservedOutcome] {
        var app = context.app(.tamperer, name: "tamperer", ip: context.settings.clientAddress(host: 4))
        _ = try await app.attest()
        var payload = try await app.signAssertion(action: "purchase", body: Data(#"{"item":"sku-1","quantity":1}"#.utf8))
        payload.request.bodySha256 = Base64Text.urlEncoded(SHA256.hash(data: Data(#"{"item":"sku-1","quantity":100}"#.utf8)))
        return [try await app.send(payload).outcome]
    }
}
