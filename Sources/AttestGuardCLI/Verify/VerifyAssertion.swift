import ArgumentParser
import Foundation
import AttestCore

extension AttestGuardCommand.Verify {
    /// `attestguard verify assertion`: signature, RP ID and counter against a known key.
    struct VerifyAssertion: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "assertion",
            abstract: "Verify an assertion object with the key registered at attestation."
        )

        @Option(help: "The assertion object (base64 text or raw CBOR).")
        var assertion: String

        @Option(help: "A PEM file with the registered P-256 public key (or the credential certificate).")
        var publicKey: String

        @Option(help: "The App ID, TEAMID.bundle.id.")
        var appId: String

        @Option(help: "A file with the exact clientData bytes the app signed (used as they are).")
        var clientData: String

        @Option(help: "The last counter accepted for the key.")
        var previousCounter: UInt32 = 0

        func run() async throws {
            let object = try InputFile.object(assertion, name: "assertion")
            let key = try InputFile.publicKey(publicKey)
            let signed = try InputFile.bytes(clientData, name: "client data")
            let verdict = AssertionVerifier().verify(
                object, publicKey: key, app: AppIdentity(appId: appId), clientData: signed, previousCounter: previousCounter)
            switch verdict {
            case .valid(let verified):
                var fields: [String: Any] = [
                    "counter": Int(verified.counter),
                    "clientDataHash": Hex.encode(verified.clientDataHash),
                    "flags": Int(verified.authenticatorData.flags.rawValue),
                ]
                if let text = String(validating: verified.clientData, as: UTF8.self) { fields["clientData"] = text }
                AuthenticatorExtensionsReport.add(verified.extensions, to: &fields)
                try VerificationReport.valid(fields).emit()
            case .invalid(let error):
                try VerificationReport.invalid(code: error.code.errorCode, detail: error.detail).emit()
            }
        }
    }
}
