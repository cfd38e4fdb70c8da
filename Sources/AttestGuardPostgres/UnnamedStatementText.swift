/// A prepared statement whose text differs when it is sent unnamed, behind a pooler in transaction mode
/// (``PostgresPooler/transaction``), where PostgreSQL plans it at every call: what helps a plan made once may cost
/// planning time there (``BatchedFactsParameters/planBarrier(keepingPlan:)``). Both texts take the same parameters
/// and answer the same rows.
protocol UnnamedStatementText {
    static var unnamedSQL: String { get }
}
