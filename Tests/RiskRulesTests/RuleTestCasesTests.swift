import AttestVocabulary
import RiskRules
import Testing

/// Rule test cases: what a case expected is kept beside what came out, and an expectation that could never fail is
/// a problem of the case file.
struct RuleTestCasesTests {
    static let rules = """
        version: 1
        rules:
          - id: farm
            when: receipt.risk_metric >= 10
            score: +60
        """

    static func report(_ cases: String) throws -> RuleTestCases.Report {
        var report = RuleTestCases.Report()
        RuleTestCases.run(try ruleSet(Self.rules), file: "tests/cases.yaml", text: cases, into: &report)
        return report
    }

    @Test func theExpectationIsKeptAsWritten() throws {
        let report = try Self.report("""
            cases:
              - name: open
                signals: { receipt.risk_metric: 12 }
                expect: { decision: review }
              - name: exact
                signals: { receipt.risk_metric: 12 }
                expect: { decision: allow, fired: [farm], score: 50 }
            """)
        #expect(report.errors.isEmpty)
        let (open, exact) = (try #require(report.results.first?.expected), try #require(report.results.last?.expected))
        #expect(open.decision == .review && open.fired == nil && open.score == nil)
        #expect(exact.decision == .allow && exact.fired == ["farm"] && exact.score == 50)
        #expect(report.results.map(\.passed) == [true, false])
        #expect(report.results.last?.failures == ["decision review, expected allow", "score 60, expected 50"])
    }

    @Test(arguments: [".nan", ".inf", "-.inf"])
    func aScoreThatIsNotFiniteIsAProblem(_ score: String) throws {
        let report = try Self.report("""
            cases:
              - name: never fails
                signals: { receipt.risk_metric: 12 }
                expect: { decision: review, score: \(score) }
            """)
        #expect(report.results.isEmpty)
        #expect(report.errors.map(\.code) == [.invalidTestCase])
    }
}
