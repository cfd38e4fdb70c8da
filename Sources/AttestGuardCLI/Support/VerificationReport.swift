import ArgumentParser
import AttestVocabulary
import Foundation

/// The one JSON object a `verify` command prints, and the exit code that goes with it.
struct VerificationReport {
    private var fields: [String: Any]

    /// A report for a valid object with its fields.
    static func valid(_ fields: [String: Any]) -> VerificationReport {
        VerificationReport(fields: fields.merging(["valid": true]) { $1 })
    }

    /// A report for an invalid object: its stable code and what failed.
    static func invalid(code: ErrorCode, detail: String) -> VerificationReport {
        VerificationReport(fields: ["valid": false, "error": code.rawValue, "detail": detail])
    }

    /// Prints the JSON object on stdout and ends with exit 0 (valid) or 1 (invalid).
    func emit() throws {
        let data = try JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys, .withoutEscapingSlashes])
        print(String(decoding: data, as: UTF8.self))
        if fields["valid"] as? Bool != true {
            throw ExitCode(1)
        }
    }
}
