import PostgresNIO
import AttestGuardStore

/// PostgreSQL's refusal of a named prepared statement whose rows would now have another type (SQLSTATE 0A000, `cached
/// plan must not change result type`): after this connection prepared it, a migration changed the type of a column
/// the statement returns, or added a column to a table it returns with `*`. The refusal comes before anything runs,
/// and the connection refuses the statement for as long as it lives, since postgres-nio prepares a statement once per
/// connection: the store closes it and runs the statement on another
/// (``PostgresRiskStore/executeNamed(_:on:attempts:logger:)``).
struct StalePreparedPlan {
    /// `feature_not_supported`, raised where PostgreSQL revalidates a cached plan.
    static let sqlState = "0A000"
    static let routine = "RevalidateCachedQuery"

    let message: String

    /// The refusal `error` reports, or `nil` for any other error. The routine identifies it whatever the server's
    /// message language; the message, where a server leaves the routine out.
    init?(_ error: PSQLError) {
        guard error.code == .server, error.serverInfo?[.sqlState] == Self.sqlState else { return nil }
        let message = error.serverInfo?[.message] ?? ""
        guard error.serverInfo?[.routine] == Self.routine || message == "cached plan must not change result type" else { return nil }
        self.message = message
    }

    /// `store_unavailable` (503 at the HTTP layer), when every connection tried refused the statement.
    var storeError: StoreError {
        StoreError(.unavailable, "PostgreSQL \(Self.sqlState): \(message) (the schema changed under this process's prepared statements)")
    }
}
