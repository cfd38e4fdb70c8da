import PostgresNIO
import AttestGuardStore

/// The scoring facts of a batch of verdicts in one statement: ``ScoringFactsSQL`` once for each query, over the
/// batch's ``BatchedFactsParameters``, all from one snapshot. One prepared statement of each ``ScoringFactsShape``
/// serves any batch size.
struct ScoringFactsBatchStatement<Shape: ScoringFactsShape>: PostgresPreparedStatement, UnnamedStatementText {
    /// One query's facts: its position in ``queries`` (from 0) and what was found.
    typealias Row = (index: Int, facts: ScoringFacts)

    static var name: String { ScoringFactsBatchTexts.shaped.of(Shape.self).name }
    static var sql: String { ScoringFactsBatchTexts.shaped.of(Shape.self).sql }
    static var unnamedSQL: String { ScoringFactsBatchTexts.shaped.of(Shape.self).unnamedSQL }

    static var bindingDataTypes: [PostgresDataType] { BatchedFactsParameters.dataTypes }

    /// The batch's queries.
    var queries: [ScoringFactsQuery]

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: Self.bindingDataTypes.count)
        BatchedFactsParameters.append(queries, to: &bindings)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row {
        let read = PostgresRowReader(row.makeRandomAccess(), table: "batched scoring facts", layoutOf: Self.self)
        let index = try BatchedFactsParameters.entryIndex(of: read, in: queries.count)
        return (index, try ScoringFactsRow.facts(in: read, asked: queries[index]))
    }
}

/// The texts of ``ScoringFactsBatchStatement`` for each shape.
private enum ScoringFactsBatchTexts {
    static let shaped = ShapedStatementTexts(
        name: "attestguard_scoring_facts_batch_v6", exactName: "attestguard_scoring_facts_batch_exact_v4", text: text(_:keepingPlan:)
    )

    private static let facts = BatchedFactsParameters(first: 1)

    private static func text(_ shape: any ScoringFactsShape.Type, keepingPlan: Bool) -> String {
        """
        SELECT e.i AS batch_index, f.*
        FROM (SELECT \(facts.parameterColumns) \(BatchedFactsParameters.planBarrier(keepingPlan: keepingPlan))) AS p
        CROSS JOIN LATERAL (\(facts.entryRows)) AS e
        CROSS JOIN LATERAL (\(facts.facts(shape))) AS f
        """
    }
}
