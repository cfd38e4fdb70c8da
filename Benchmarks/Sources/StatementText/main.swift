import AttestGuardPostgres
import Foundation

// Prints the SQL of one of the store's statements as the server sends it (`scoring-facts-batch` or
// `commit-assertions`), for Benchmarks/pooler.sh.
let statements = [
    "scoring-facts-batch": PostgresStatementText.scoringFactsBatch,
    "commit-assertions": PostgresStatementText.commitAssertions,
]
guard CommandLine.arguments.count == 2, let text = statements[CommandLine.arguments[1]] else {
    FileHandle.standardError.write(Data("usage: StatementText \(statements.keys.sorted().joined(separator: "|"))\n".utf8))
    exit(64)
}
print(text)
