import AttestGuardPostgres
import Foundation

// Prints the SQL of one of the store's statements as the server sends it (`scoring-facts-batch`, the same sent
// unnamed behind a pooler `scoring-facts-batch-unnamed`, or `commit-assertions`), for Benchmarks/pooler.sh.
let statements = [
    "scoring-facts-batch": PostgresStatementText.scoringFactsBatch,
    "scoring-facts-batch-unnamed": PostgresStatementText.scoringFactsBatchUnnamed,
    "commit-assertions": PostgresStatementText.commitAssertions,
]
guard CommandLine.arguments.count == 2, let text = statements[CommandLine.arguments[1]] else {
    FileHandle.standardError.write(Data("usage: StatementText \(statements.keys.sorted().joined(separator: "|"))\n".utf8))
    exit(64)
}
print(text)
