import AttestGuardWire
import Crypto
import Foundation

/// Clients whose device cannot use App Attest (`attestStatus: unsupported`), scored with `POST /v1/score` as a
/// gateway does for a request without an assertion: one user outside the app's attestation-required rollout, one
/// inside. Each score is checked.
enum UnattestedClients {
    static func play(_ context: TrafficContext, insideRollout: Bool) async throws -> [ObservedOutcome] {
        let persona: Persona = insideRollout ? .unattestedInsideRollout : .unattestedOutsideRollout
        let percent = context.settings.attestationRequiredPercent
        guard insideRollout ? percent > 0 : percent < 100 else {
            return [.unexpected("no user is \(insideRollout ? "inside" : "outside") a rollout of \(percent) %")]
        }
        // The first user name whose bucket lies on the wanted side (one in two for a 50 % rollout).
        var candidate = 0
        var userId: String
        repeat {
            candidate += 1
            userId = "\(context.settings.runTag)-\(persona.rawValue)-\(candidate)"
        } while (bucket(appId: context.settings.appId, userId: userId) < percent) != insideRollout
        let body = ScoreRequestBody(
            appId: context.settings.appId, userId: userId, ip: context.settings.clientAddress(host: insideRollout ? 6 : 5),
            action: "purchase", attestStatus: "unsupported"
        )
        let answer = try await context.api.post("/v1/score", body)
        await context.tally.record(answer.outcome, for: persona)
        return [answer.outcome]
    }

    /// The user's rollout bucket, 0-99, as the server computes it: the first four bytes of
    /// SHA-256(app id, NUL, user id) as a big-endian number, modulo 100. A test holds it equal to the engine's.
    static func bucket(appId: String, userId: String) -> Int {
        let digest = SHA256.hash(data: Data(appId.utf8) + [0] + Data(userId.utf8))
        return Int(digest.prefix(4).reduce(UInt32(0)) { ($0 << 8) | UInt32($1) } % 100)
    }
}

/// One key sending assertions faster than a person could: the last of the burst is checked (the shipped
/// `assertion-burst` rule reviews a key's 20th assertion in a minute and later ones).
enum AssertionBurst {
    /// Past the shipped threshold (20 a minute) with room for a slow machine, under the 30 challenges a user may
    /// have in 5 minutes (one more goes to the attestation).
    static let assertions = 27

    static func play(_ context: TrafficContext) async throws -> [ObservedOutcome] {
        var app = context.app(.burst, name: "burst", ip: context.settings.clientAddress(host: 7))
        _ = try await app.attest()
        var last: ObservedOutcome = .unexpected("no assertion sent")
        for _ in 0..<assertions {
            let payload = try await app.signAssertion(action: "view_orders")
            last = try await app.send(payload).outcome
        }
        return [last]
    }
}
