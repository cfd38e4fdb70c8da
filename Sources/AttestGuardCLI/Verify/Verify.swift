import ArgumentParser

extension AttestGuardCommand {
    /// `attestguard verify`: checks one object offline and prints one JSON object.
    struct Verify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Verify one App Attest object offline and print the verdict as JSON.",
            discussion: """
                Prints {"valid": true, ...fields} or {"valid": false, "error": "<code>", "detail": "..."}. FILE \
                arguments may hold base64 text or raw bytes.

                Exit status: 0 valid, 1 invalid, 2 usage error.
                """,
            subcommands: [VerifyAttestation.self, VerifyAssertion.self, VerifyReceipt.self]
        )
    }
}
