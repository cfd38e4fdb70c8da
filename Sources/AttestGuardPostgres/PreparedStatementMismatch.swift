import PostgresNIO
import AttestGuardStore

/// PostgreSQL's answer when a named prepared statement and the server connection disagree: the driver prepared it
/// on this connection, but the server connection does not have it (SQLSTATE 26000, `prepared statement "…" does not
/// exist`), or the driver prepares it anew on a server connection that already has it (42P05, `… already exists`).
/// Through a direct connection neither happens; behind a pooler in transaction mode with ``PostgresPooler/none``
/// (the setting forgotten) both do under load, since the pooler hands each statement any server connection.
struct PreparedStatementMismatch {
    /// `invalid_sql_statement_name` and `duplicate_prepared_statement`.
    static let sqlStates: Set<String> = ["26000", "42P05"]

    let sqlState: String
    let message: String

    /// The mismatch `error` reports, or `nil` for any other error.
    init?(_ error: PSQLError) {
        guard error.code == .server, let sqlState = error.serverInfo?[.sqlState], Self.sqlStates.contains(sqlState) else { return nil }
        self.sqlState = sqlState
        self.message = error.serverInfo?[.message] ?? "no message"
    }

    /// `store_unavailable` (503 at the HTTP layer), saying what to configure: the statement is sound, the
    /// connection's state is not what the driver believes.
    var storeError: StoreError {
        StoreError(
            .unavailable,
            "PostgreSQL \(sqlState): \(message) (a connection pooler in transaction mode? set database.pooler: transaction)"
        )
    }
}
