/// A JUnit XML report as CI systems read it: `<testsuites>` holding a `<testsuite>` per file, each holding
/// `<testcase>`s that pass or carry one `<failure>` (a check that did not hold) or one `<error>` (a problem that kept
/// the check from running). `tests`, `failures`, `errors` and `skipped` are counted from the cases; `time` on
/// `<testsuites>` is the command's wall time, and 0 on suites and cases, which are not timed one by one.
struct JUnitReport {
    /// Why a case did not pass.
    struct Outcome {
        enum Kind: String {
            case failure
            case error
        }

        var kind: Kind
        /// One line: the `message` attribute.
        var message: String
        /// A stable code, or `nil`: the `type` attribute.
        var type: String?
        /// The element's text: the whole story, as the text output tells it.
        var details: String
    }

    /// One `<testcase>`; `outcome` is `nil` when it passed.
    struct TestCase {
        var name: String
        var classname: String
        var file: String
        var line: Int?
        var outcome: Outcome?
    }

    /// One `<testsuite>`, with `<properties>` when `properties` has any.
    struct Suite {
        var name: String
        var properties: [(name: String, value: String)] = []
        var cases: [TestCase] = []

        func count(_ kind: Outcome.Kind) -> Int { cases.count { $0.outcome?.kind == kind } }
    }

    var name: String
    var suites: [Suite]
    var time: Duration

    /// The document, UTF-8, ending in a line feed.
    var xml: String {
        var lines = [#"<?xml version="1.0" encoding="UTF-8"?>"#]
        let cases = suites.flatMap(\.cases)
        lines.append("<testsuites" + attributes([
            ("name", name), ("tests", "\(cases.count)"), ("failures", "\(cases.count { $0.outcome?.kind == .failure })"),
            ("errors", "\(cases.count { $0.outcome?.kind == .error })"), ("skipped", "0"), ("time", Self.seconds(time)),
        ]) + ">")
        for suite in suites {
            lines.append("  <testsuite" + attributes([
                ("name", suite.name), ("tests", "\(suite.cases.count)"), ("failures", "\(suite.count(.failure))"),
                ("errors", "\(suite.count(.error))"), ("skipped", "0"), ("time", Self.seconds(.zero)),
            ]) + ">")
            if !suite.properties.isEmpty {
                lines.append("    <properties>")
                for property in suite.properties {
                    lines.append("      <property" + attributes([("name", property.name), ("value", property.value)]) + "/>")
                }
                lines.append("    </properties>")
            }
            for testCase in suite.cases {
                lines.append(contentsOf: element(testCase))
            }
            lines.append("  </testsuite>")
        }
        lines.append("</testsuites>")
        return lines.joined(separator: "\n") + "\n"
    }

    private func element(_ testCase: TestCase) -> [String] {
        var pairs = [("name", testCase.name), ("classname", testCase.classname), ("file", testCase.file)]
        if let line = testCase.line { pairs.append(("line", "\(line)")) }
        pairs.append(("time", Self.seconds(.zero)))
        guard let outcome = testCase.outcome else { return ["    <testcase" + attributes(pairs) + "/>"] }
        var outcomePairs = [("message", outcome.message)]
        if let type = outcome.type { outcomePairs.append(("type", type)) }
        return [
            "    <testcase" + attributes(pairs) + ">",
            "      <\(outcome.kind.rawValue)" + attributes(outcomePairs) + ">" + XMLEscaping.content(outcome.details) + "</\(outcome.kind.rawValue)>",
            "    </testcase>",
        ]
    }

    private func attributes(_ pairs: [(String, String)]) -> String {
        pairs.map { " \($0.0)=\"\(XMLEscaping.attribute($0.1))\"" }.joined()
    }

    /// Seconds with three decimals, as JUnit writers give them.
    static func seconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let milliseconds = max(0, seconds * 1000 + attoseconds / 1_000_000_000_000_000)
        let fraction = String(milliseconds % 1000)
        return "\(milliseconds / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }
}
