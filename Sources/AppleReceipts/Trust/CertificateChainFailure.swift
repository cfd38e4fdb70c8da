package import X509

extension CertificateValidationResult.PolicyFailure {
    /// The failure reason in one line, for a ``ReceiptError`` or verification error detail.
    package var summary: String {
        "\(policyFailureReason)"
    }
}

/// Renders a verifier's failures as one readable line.
package func describeChainFailures(_ failures: [CertificateValidationResult.PolicyFailure]) -> String {
    if failures.isEmpty { return "no chain to the pinned root could be built" }
    var seen = Set<String>()
    let reasons = failures.map(\.summary).filter { seen.insert($0).inserted }
    return reasons.joined(separator: "; ")
}
