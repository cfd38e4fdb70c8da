import ArgumentParser
import AttestCore
import DeviceSimulator
import Foundation
import AttestVocabulary

/// `attestguard simulate device`: mints App Attest objects by hand, as a simulated iPhone would, for exploring the
/// API from a shell and for bug reports. `attest` creates a key and its attestation for a challenge; `assert` signs
/// the next assertion (clientData v1) for a request. Each prints the JSON body to POST; the key lives in the state
/// file named with `--state`.
struct SimulateDevice: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "device",
        abstract: "Mint an attestation or an assertion body as a simulated device would (simulator mode servers only).",
        subcommands: [Attest.self, Assert.self]
    )

    /// `attestguard simulate device attest`.
    struct Attest: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a key, attest it for a challenge, and print the POST /v1/attestations body.",
            discussion: """
                The attestation chains to the simulator PKI of --seed, which must equal the server's \
                simulator.seed. The key's private material goes to --state (mode 0600), which `assert` reads.
                """
        )

        @Option(help: "The state file to create or replace.") var state: String
        // Unconditional: a base64url challenge starts with "-" one time in 64, and must not read as a flag.
        @Option(parsing: .unconditional, help: "The challenge the server issued (base64url), purpose attestation.") var challenge: String
        @Option(help: "The app id, TEAMID.bundle.id.") var appId: String
        @Option(help: "The user the key belongs to.") var userId: String
        @Option(help: "The device id (the app's vendor identifier); it also names the simulated device.") var deviceId = "simulated-device-1"
        @Option(help: "Which of the device's keys (0, 1, ...): a new index is a new key.") var keyIndex = 0
        @Option(help: "The App Attest environment of the device: development or production.") var environment = AppAttestEnvironment.development.rawValue
        @Option(help: "The simulator PKI seed (the server's simulator.seed).") var seed = "attestguard-simulator"
        @Option(help: "The client IP to put in the body, as a gateway would.") var ip: String?
        @Flag(help: "Pass the challenge bytes themselves as clientDataHash (apps configured attestationClientDataHash: raw).") var raw = false

        func validate() throws {
            guard AppAttestEnvironment(rawValue: environment) != nil else { throw ValidationError("--environment must be development or production") }
            guard keyIndex >= 0 else { throw ValidationError("--key-index must not be negative") }
            guard Base64Text.decodeURL(challenge)?.count == 32 else { throw ValidationError("--challenge must be the base64url of 32 bytes, as the server issued it") }
        }

        func run() async throws {
            let pki = try SimulatedApplePKI(seed: seed)
            let device = SimulatedDevice(pki: pki, identifier: deviceId, environment: AppAttestEnvironment(rawValue: environment) ?? .development)
            let client = SimulatedAppClient(device: device, app: AppIdentity(appId: appId), keyIndex: keyIndex, userId: userId, deviceId: deviceId)
            var payload = try client.attestation(challenge: challenge, at: Date(), raw: raw)
            payload.ip = ip
            try SimulatedDeviceState(
                appId: appId, userId: userId, deviceId: deviceId, keyId: client.key.keyIdBase64,
                privateKeyPEM: client.key.privateKey.pemRepresentation, counter: 0
            ).write(state)
            try printJSON(payload)
        }
    }

    /// `attestguard simulate device assert`.
    struct Assert: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Sign the next assertion of the key in --state for a request, and print the POST /v1/assertions body.",
            discussion: """
                The clientData is format v1, bound to --method, --path and the SHA-256 of the body; the counter in \
                the state file advances by one. Get the challenge with purpose assertion (and the key id from the \
                state file).
                """
        )

        @Option(help: "The state file `attest` wrote.") var state: String
        // Unconditional: a base64url challenge starts with "-" one time in 64, and must not read as a flag.
        @Option(parsing: .unconditional, help: "The challenge the server issued (base64url), purpose assertion.") var challenge: String
        @Option(help: "The protected request's method.") var method = "POST"
        @Option(help: "The protected request's path (request-target).") var path = "/api/orders"
        @Option(parsing: .unconditional, help: "The protected request's body, as text.") var body = #"{"item":"sku-1"}"#
        @Option(help: "A file holding the body (instead of --body).") var bodyFile: String?
        @Option(help: "The client IP to put in the body, as a gateway would.") var ip: String?
        @Option(help: "The action the rules read (request.action).") var action: String?

        func validate() throws {
            guard Base64Text.decodeURL(challenge)?.count == 32 else { throw ValidationError("--challenge must be the base64url of 32 bytes, as the server issued it") }
        }

        func run() async throws {
            var saved = try SimulatedDeviceState.read(state)
            let requestBody: Data
            if let bodyFile {
                guard let data = FileManager.default.contents(atPath: bodyFile) else { throw ValidationError("cannot read --body-file \(bodyFile)") }
                requestBody = data
            } else {
                requestBody = Data(body.utf8)
            }
            guard saved.counter < UInt32.max else { throw SimulatedDeviceStateError("the key's counter is exhausted") }
            saved.counter += 1
            let payload = SimulatedAppClient.assertion(
                privateKey: try saved.privateKey(), counter: saved.counter, app: AppIdentity(appId: saved.appId), userId: saved.userId,
                challenge: challenge, method: method, path: path, body: requestBody, ip: ip, action: action
            )
            // The counter is saved before the body is printed: a body that was shown must never be signed again.
            try saved.write(state)
            try printJSON(payload)
        }
    }
}

/// Prints `value` as one line of JSON with sorted keys.
private func printJSON(_ value: some Encodable) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    FileHandle.standardOutput.write(try encoder.encode(value) + Data("\n".utf8))
}
