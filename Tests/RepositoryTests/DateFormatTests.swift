import Testing

/// Dates are written and read by one implementation, `RFC3339` in the wire module: the API's JSON, the CLI's output,
/// the client and the logs agree to the millisecond, and no formatter differs between Linux and Apple's platforms.
struct DateFormatTests {
    /// Spellings that mean a second date implementation.
    static let others = ["ISO8601DateFormatter", "DateFormatter()", "enum ISO8601Timestamp", "enum RFC3339Instant", "enum RFC3339Timestamp"]

    @Test func sourcesUseTheOneRFC3339() throws {
        let sources = try RepositoryFiles.tracked().filter { $0.hasPrefix("Sources/") && $0.hasSuffix(".swift") }
        #expect(!sources.isEmpty)
        var found: [String] = []
        for source in sources {
            let text = try RepositoryFiles.text(source)
            for spelling in Self.others where text.contains(spelling) { found.append("\(source): \(spelling)") }
        }
        #expect(found.isEmpty, "use RFC3339 (Sources/AttestGuardWire/RFC3339.swift) instead: \(found)")
    }
}
