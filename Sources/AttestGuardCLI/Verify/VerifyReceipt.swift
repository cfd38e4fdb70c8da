import ArgumentParser
import Foundation
import AttestCore
import AppleReceipts
import AttestGuardWire

extension AttestGuardCommand.Verify {
    /// `attestguard verify receipt`: CMS signature, chain to Apple Root CA - G3, and fields.
    struct VerifyReceipt: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "receipt",
            abstract: "Verify an App Attest receipt and print its fields."
        )

        @Option(help: "The receipt (base64 text or raw DER/BER).")
        var receipt: String

        @Option(help: "The App ID, TEAMID.bundle.id.")
        var appId: String

        @Option(help: "A PEM file with the attested P-256 public key to compare with field 3.")
        var publicKey: String?

        @Option(help: "Reject a receipt created more than this many seconds before the instant.")
        var maxAge: Double?

        @Option(help: "A PEM file of receipt root(s) to trust instead of Apple Root CA - G3.")
        var root: String?

        @OptionGroup var instantOptions: InstantOptions

        func run() async throws {
            let bytes = try InputFile.object(receipt, name: "receipt")
            let expectation = ReceiptExpectation(
                appId: appId,
                publicKeyX963: try publicKey.map { Array(try InputFile.publicKey($0).x963Representation) },
                maximumAge: maxAge
            )
            let verifier = ReceiptVerifier(
                trustRoots: try root.map(InputFile.certificates) ?? [ReceiptTrustAnchor.appleRootCAG3],
                clockSkewTolerance: instantOptions.clockSkew
            )
            switch await verifier.verify(bytes, expecting: expectation, at: try instantOptions.instant()) {
            case .valid(let verified):
                try VerificationReport.valid(ReceiptReport.fields(of: verified)).emit()
            case .invalid(let error):
                try VerificationReport.invalid(code: error.code.errorCode, detail: error.detail).emit()
            }
        }
    }
}

/// The JSON fields of a decoded receipt.
enum ReceiptReport {
    static func fields(of receipt: Receipt) -> [String: Any] {
        var fields: [String: Any] = [
            "appId": receipt.appId,
            "type": receipt.type.rawValue,
            "creationTime": RFC3339.format(receipt.creationTime),
            "attestedPublicKey": Hex.encode(receipt.attestedPublicKeyX963),
        ]
        fields["environment"] = receipt.environment ?? NSNull()
        fields["notBefore"] = receipt.notBefore.map(RFC3339.format) ?? NSNull()
        fields["expirationTime"] = receipt.expirationTime.map(RFC3339.format) ?? NSNull()
        fields["riskMetric"] = receipt.riskMetric ?? NSNull()
        fields["token"] = receipt.token ?? NSNull()
        if let clientHash = receipt.clientHash { fields["clientHash"] = Hex.encode(clientHash) }
        return fields
    }
}
