import PostgresNIO
import AttestGuardStore

/// The scoring facts of a batch of verdicts in one statement: ``ScoringFactsSQL`` once for each query, over the
/// batch's ``BatchedFactsParameters``, all from one snapshot. One prepared statement serves any batch size.
struct ScoringFactsBatchStatement: PostgresPreparedStatement, UnnamedStatementText {
    /// One query's facts: its position in ``queries`` (from 0) and what was found.
    typealias Row = (index: Int, facts: ScoringFacts)

    static let name = "attestguard_scoring_facts_batch_v3"

    private static let facts = BatchedFactsParameters(first: 1)

    static let sql = text(keepingPlan: true)
    static let unnamedSQL = text(keepingPlan: false)

    private static func text(keepingPlan: Bool) -> String {
        """
        SELECT e.i AS batch_index, f.*
        FROM (SELECT \(facts.parameterColumns) \(BatchedFactsParameters.planBarrier(keepingPlan: keepingPlan))) AS p
        CROSS JOIN LATERAL unnest(\(facts.scalarArrays)) WITH ORDINALITY AS e(\(BatchedFactsParameters.scalarColumns), i)
        CROSS JOIN LATERAL (\(facts.facts)) AS f
        """
    }

    static let bindingDataTypes = BatchedFactsParameters.dataTypes

    /// The batch's queries.
    var queries: [ScoringFactsQuery]

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: Self.bindingDataTypes.count)
        BatchedFactsParameters.append(queries, to: &bindings)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {
        let index = try BatchedFactsParameters.entryIndex(of: row, in: queries.count)
        return (index, try ScoringFactsRow.facts(in: row, asked: queries[index]))
    }
}
