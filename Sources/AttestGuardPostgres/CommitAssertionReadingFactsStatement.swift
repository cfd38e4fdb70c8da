import Foundation
import PostgresNIO
import AttestGuardStore

/// An accepted assertion and its verdict's facts in one round trip: the commit function (schema 15) and the
/// scoring-facts query (``ScoringFactsStatement``) in one prepared statement. The facts are read from the
/// statement's snapshot, taken before the function ran: they are the facts just before the commit, which the caller
/// advances by what the commit changed (``ScoringFacts/committing(_:)``). When the commit failed they are ignored.
struct CommitAssertionReadingFactsStatement: PostgresPreparedStatement {
    typealias Row = (CommitAssertionStatement.Answer, ScoringFacts)

    static let name = "attestguard_commit_assertion_facts_v1"

    static let sql = """
        SELECT c.failed_step, c.previous_counter, f.*
        FROM attestguard_commit_assertion($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb) AS c
        CROSS JOIN LATERAL (\(ScoringFactsStatement.sql(parametersFrom: 10))) AS f
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
