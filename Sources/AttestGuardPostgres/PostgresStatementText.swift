/// The SQL of the store's hottest statements as it sends them, for tools that measure them outside the server
/// (`Benchmarks/pooler.sh` runs them in pgbench). The statements themselves are internal.
public enum PostgresStatementText {
    /// The verdicts' facts of a batch (``ScoringFactsBatchStatement``): 28 array parameters, one element per verdict
    /// for the first 12 (``BatchedFactsParameters``).
    public static var scoringFactsBatch: String { ScoringFactsBatchStatement<AllScoringFacts>.sql }

    /// ``scoringFactsBatch`` as it is sent unnamed, behind a pooler in transaction mode (planned at every call).
    public static var scoringFactsBatchUnnamed: String { ScoringFactsBatchStatement<AllScoringFacts>.unnamedSQL }

    /// A batch of accepted assertions and their facts (``CommitAssertionsStatement``): 38 array parameters.
    public static var commitAssertions: String { CommitAssertionsStatement<AllScoringFacts>.sql }
}
