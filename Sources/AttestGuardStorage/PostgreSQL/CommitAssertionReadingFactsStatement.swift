import Foundation
import PostgresNIO

/// An accepted assertion and its verdict's facts in one round trip: the commit's parts (``CommitAssertionStatement``)
/// and the scoring-facts query's (``ScoringFactsStatement``) in one statement. Every part reads the statement's
/// snapshot, taken before the commit's updates: the facts are those just before the commit, which the caller
/// advances by what the commit changed (``ScoringFacts/committing(_:)``). When the commit failed they are ignored.
struct CommitAssertionReadingFactsStatement: PostgresPreparedStatement {
    typealias Row = (CommitAssertionStatement.Answer, ScoringFacts)

    static let name = "attestguard_commit_assertion_facts_v2"

    static let sql = """
        WITH \(CommitAssertionStatement.commonTableExpressions),
        \(ScoringFactsStatement.renumbered(ScoringFactsStatement.commonTableExpressions, parametersFrom: 10))
        SELECT \(CommitAssertionStatement.answerColumns),
               \(ScoringFactsStatement.renumbered(ScoringFactsStatement.selectList, parametersFrom: 10))
        """

    static let bindingDataTypes = CommitAssertionStatement.bindingDataTypes + ScoringFactsStatement.bindingDataTypes

    var commit: CommitAssertionStatement
    var facts: ScoringFactsStatement

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: Self.bindingDataTypes.count)
        try commit.appendBindings(to: &bindings)
        try facts.appendBindings(to: &bindings)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {
        (try CommitAssertionStatement.answer(row), try facts.decodeRow(row))
    }
}
