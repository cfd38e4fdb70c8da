public import Foundation

/// The final table of a traffic run: persona, what happened, expected, actual, the top reasons, and whether the
/// persona got what it should. As text for people, as JSON (a list of rows) for scripts.
public struct TrafficReport: Sendable {
    /// One persona's row.
    public struct Row: Codable, Sendable, Equatable {
        public var persona: String
        public var happened: String
        public var expected: String
        public var actual: String
        public var reasons: [String]
        public var checked: Int
        public var matched: Bool
        /// Every answer the persona's requests got, checked or not, by its short form (`allow`, `deny`,
        /// `409 assertion_already_accepted`) with its count: the run's tally, which the server's decision log must
        /// match verdict for verdict. Absent when the report was made without the tally.
        public var answers: [String: Int]?
    }

    public let rows: [Row]

    /// - Parameter tally: The run's counters, whose answers per persona go in each row.
    public init(_ results: [PersonaResult], tally: TrafficTally.Snapshot? = nil) {
        rows = results.map { result in
            Row(
                persona: result.persona.rawValue,
                happened: result.persona.story,
                expected: result.expected.description,
                actual: result.actual,
                reasons: result.topReasons,
                checked: result.outcomes.count,
                matched: result.matched,
                answers: tally.map { $0.outcomes[result.persona] ?? [:] }
            )
        }
    }

    /// Every persona got its expected outcome.
    public var allMatched: Bool { !rows.isEmpty && rows.allSatisfy(\.matched) }

    /// The rows as a JSON array, keys sorted.
    public func json() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(rows)
    }

    /// The table as aligned text; each row's result is `ok` or `UNEXPECTED`.
    public var text: String {
        let header = ["persona", "result", "what happened", "expected", "actual", "top reasons"]
        let cells = rows.map { row in
            [row.persona, row.matched ? "ok" : "UNEXPECTED", row.happened, row.expected, row.actual, row.reasons.joined(separator: ", ")]
        }
        let widths = header.indices.map { column in ([header] + cells).map { $0[column].count }.max() ?? 0 }
        func line(_ values: [String]) -> String {
            zip(values, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }.joined(separator: "  ")
                .trimmingCharacters(in: .whitespaces)
        }
        var lines = [line(header), line(widths.map { String(repeating: "-", count: $0) })]
        lines += cells.map(line)
        let failed = rows.filter { !$0.matched }.map(\.persona)
        lines.append("")
        lines.append(failed.isEmpty ? "every persona got its expected outcome" : "UNEXPECTED outcomes for: " + failed.joined(separator: ", "))
        return lines.joined(separator: "\n") + "\n"
    }
}
