/// The rows of parallel arrays as an SQL query: row `i` (from 1) holds element `i` of each array, for the batch
/// statements that send their entries column by column (``CommitAssertionsStatement``, ``ScoringFactsBatchStatement``).
///
/// The first array is unnested with its ordinality and the others are read by subscript, instead of one `unnest` of
/// them all: PostgreSQL runs a multi-array `unnest` as one function per array, each set up at every execution and
/// called for every row, which for the commit's 22 arrays cost about 107,000 instructions an execution more than
/// this form, and 14,000 more for each further entry (`Benchmarks/statements.sh`). A subscript into an array of
/// variable-length elements walks the elements before it, so a batch of n reads each such array in n²/2 steps: by
/// estimate some tens of thousands of instructions at the default batch of 32, and about what the `unnest` cost at
/// the configurable limit of 256.
///
/// Every array must have the first one's length (a batch's columns do): a shorter one reads NULL past its end, as the
/// multi-array `unnest` would.
struct ParallelArrayRows {
    /// An array (an SQL expression of an array type) and the name of the column its elements become.
    typealias Column = (array: String, name: String)

    /// The array that decides the rows, and the others, in order.
    var first: Column
    var others: [Column]

    /// `SELECT` of the columns and `i` (`int8`, from 1), one row per element of the first array. `alias` names the
    /// `unnest` inside it, which must not clash with the names the arrays' expressions use.
    func query(unnestedAs alias: String) -> String {
        let subscripted = others.map { "(\($0.array))[\(alias).i] AS \($0.name)" }
        let selected = (["\(alias).\(first.name)"] + subscripted + ["\(alias).i"]).joined(separator: ", ")
        return "SELECT \(selected) FROM unnest(\(first.array)) WITH ORDINALITY AS \(alias)(\(first.name), i)"
    }
}
