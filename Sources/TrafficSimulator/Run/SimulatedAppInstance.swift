import AttestGuardWire
import AttestCore
import AttestVocabulary
import Crypto
import DeviceSimulator
import Foundation

/// One install of the app on one simulated device, talking to the server as its gateway would: it asks for
/// challenges, attests its key, signs assertions (clientData v1) for requests, and counts every answer in the
/// run's tally under its persona.
struct SimulatedAppInstance: Sendable {
    let persona: Persona
    private(set) var client: SimulatedAppClient
    let ip: String
    let context: TrafficContext

    init(persona: Persona, client: SimulatedAppClient, ip: String, context: TrafficContext) {
        self.persona = persona
        self.client = client
        self.ip = ip
        self.context = context
    }

    var keyId: String { Data(client.key.keyId).base64EncodedString() }
    var userId: String { client.userId }
    var deviceId: String? { client.deviceId }

    /// Registers the key: a challenge, then the attestation. A failure of either is thrown.
    func attest() async throws -> APIAnswer {
        let challenge = try await issueChallenge(.attestation)
        var payload = try client.attestation(challenge: challenge, at: context.now())
        payload.ip = ip
        let answer = try await submit(payload, to: "/v1/attestations", step: "attestation")
        await context.tally.keyAttested(keyId, by: persona)
        return answer
    }

    /// A signed assertion body for a protected request, on a fresh challenge bound to the key (the counter advances).
    mutating func signAssertion(
        action: String, method: String = "POST", path: String = "/api/orders", body: Data = Data(#"{"item":"sku-1"}"#.utf8)
    ) async throws -> AssertionRequestBody {
        let challenge = try await issueChallenge(.assertion)
        return client.assertion(challenge: challenge, method: method, path: path, body: body, ip: ip, action: action)
    }

    /// Sends an assertion body and counts the answer, whatever it is.
    func send(_ payload: AssertionRequestBody) async throws -> APIAnswer {
        let answer = try await context.api.post("/v1/assertions", payload)
        await context.tally.record(answer.outcome, for: persona)
        return answer
    }

    /// Signs and sends one assertion; the answer must be a success.
    mutating func assertSucceeding(action: String) async throws -> APIAnswer {
        let payload = try await signAssertion(action: action)
        return try await submit(payload, to: "/v1/assertions", step: "assertion")
    }

    private func issueChallenge(_ purpose: ChallengePurpose) async throws -> String {
        let body = ChallengeRequestBody(
            appId: context.settings.appId, purpose: purpose == .assertion ? .assertion : .attestation, userId: userId,
            keyId: purpose == .assertion ? keyId : nil, ip: ip
        )
        let answer = try await context.api.post("/v1/challenges", body)
        guard answer.succeeded, let challenge = answer.json["challenge"] as? String else {
            throw PersonaStepFailure(step: "\(purpose) challenge", outcome: answer.outcome)
        }
        return challenge
    }

    private func submit(_ payload: some Encodable & Sendable, to path: String, step: String) async throws -> APIAnswer {
        let answer = try await context.api.post(path, payload)
        await context.tally.record(answer.outcome, for: persona)
        guard answer.succeeded else { throw PersonaStepFailure(step: step, outcome: answer.outcome) }
        return answer
    }
}

/// A step a persona needs before its checked request did not succeed: the persona's outcome is this failure.
struct PersonaStepFailure: Error, CustomStringConvertible {
    let step: String
    let outcome: ObservedOutcome

    var description: String { "\(step) got \(outcome)" }
}
