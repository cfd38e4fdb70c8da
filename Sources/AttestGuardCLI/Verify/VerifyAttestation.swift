public import ArgumentParser
import Foundation
import AttestCore
import AppleReceipts
public import AttestVocabulary

extension AttestGuardCommand.Verify {
    /// `attestguard verify attestation`: Apple's nine steps and the embedded receipt, offline.
    struct VerifyAttestation: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "attestation",
            abstract: "Verify an attestation object (all nine steps and its ATTEST receipt)."
        )

        @Option(help: "The attestation object (base64 text or raw CBOR).")
        var attestation: String

        @Option(help: "The key id the app sent, base64.")
        var keyId: String

        @Option(help: "The App ID, TEAMID.bundle.id.")
        var appId: String

        @Option(help: "The environment the key must be attested in: development or production.")
        var environment: AppAttestEnvironment

        @Option(parsing: .unconditional, help: "The challenge as UTF-8 text (it may start with \"-\").")
        var challengeUtf8: String?

        @Option(help: "The challenge as hex.")
        var challengeHex: String?

        @Option(help: "The clientDataHash passed to attestKey, as hex (instead of a challenge).")
        var clientDataHashHex: String?

        @Option(help: "How the app turned the challenge into the clientDataHash: sha256 or none.")
        var challengeHashing: ChallengeHashing = .sha256

        @Option(help: "A PEM file of App Attest root(s) to trust instead of Apple's.")
        var root: String?

        @Option(help: "A PEM file of receipt root(s) to trust instead of Apple Root CA - G3.")
        var receiptRoot: String?

        @OptionGroup var instantOptions: InstantOptions

        func validate() throws {
            let sources = [challengeUtf8, challengeHex, clientDataHashHex].compactMap { $0 }
            guard sources.count == 1 else {
                throw ValidationError("give exactly one of --challenge-utf8, --challenge-hex, --client-data-hash-hex")
            }
        }

        func run() async throws {
            let object = try InputFile.object(attestation, name: "attestation")
            guard let keyIdBytes = Base64Text.decodeEither(keyId).map(Array.init) else {
                throw ValidationError("--key-id is not base64")
            }
            let clientData: AttestationClientData
            if let challengeUtf8 {
                clientData = .challenge(Array(challengeUtf8.utf8), hashing: challengeHashing)
            } else if let challengeHex {
                guard let bytes = Hex.decode(challengeHex) else { throw ValidationError("--challenge-hex is not hex") }
                clientData = .challenge(bytes, hashing: challengeHashing)
            } else {
                guard let bytes = Hex.decode(clientDataHashHex ?? "") else { throw ValidationError("--client-data-hash-hex is not hex") }
                clientData = .clientDataHash(bytes)
            }
            let verifier = AttestationVerifier(
                trustRoots: try root.map(InputFile.certificates) ?? [AppAttestTrustAnchor.appleAppAttestationRoot],
                receiptTrustRoots: try receiptRoot.map(InputFile.certificates) ?? [ReceiptTrustAnchor.appleRootCAG3],
                clockSkewTolerance: instantOptions.clockSkew
            )
            let request = AttestationRequest(
                keyId: keyIdBytes, app: AppIdentity(appId: appId), allowedEnvironments: [environment], clientData: clientData)
            switch await verifier.verify(object, request: request, at: try instantOptions.instant()) {
            case .valid(let verified):
                try VerificationReport.valid(Self.fields(of: verified)).emit()
            case .invalid(let error):
                try VerificationReport.invalid(code: error.code.errorCode, detail: error.detail).emit()
            }
        }

        static func fields(of verified: VerifiedAttestation) -> [String: Any] {
            var fields: [String: Any] = [
                "keyId": Base64Text.encode(verified.keyId),
                "environment": verified.environment.rawValue,
                "publicKey": verified.publicKey.pemRepresentation,
                "clientDataHash": Hex.encode(verified.clientDataHash),
                "flags": Int(verified.authenticatorData.flags.rawValue),
                "receipt": ReceiptReport.fields(of: verified.receipt),
                "receiptBase64": Base64Text.encode(verified.receiptBytes),
            ]
            let information = verified.certificateInformation
            if let osVersion = information.osVersion { fields["osVersion"] = osVersion }
            if let osBuild = information.osBuild { fields["osBuild"] = osBuild }
            if let policy = information.keyAccessControlPolicy { fields["keyAccessControlPolicy"] = Hex.encode(policy) }
            if let appIdentifier = information.appIdentifier { fields["certificateAppId"] = appIdentifier }
            if !verified.credential.trailingData.isEmpty {
                fields["trailingData"] = Hex.encode(verified.credential.trailingData)
            }
            AuthenticatorExtensionsReport.add(verified.credential.extensions, to: &fields)
            return fields
        }
    }
}

extension AppAttestEnvironment: ExpressibleByArgument {}
extension ChallengeHashing: ExpressibleByArgument {}
