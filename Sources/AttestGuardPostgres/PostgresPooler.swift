import AttestGuardStore
/// What stands between the store and PostgreSQL, and so what the store may keep on a server connection.
///
/// - ``none``: the store's connections are PostgreSQL's own, or a pooler's in session mode (one server connection per
///   client connection for its lifetime). The hot statements (scoring facts, the assertion commit and the other
///   `PostgresPreparedStatement`s) are named prepared statements, parsed and planned once per connection.
/// - ``transaction``: a pooler in transaction mode (PgBouncer `pool_mode = transaction`) hands each transaction, or
///   each statement outside one, whichever server connection is free, so nothing may outlive a transaction: the store
///   sends every statement unnamed (parsed and planned each time) and no startup parameter (a `search_path` in the URL
///   is refused; give the role a default `search_path` instead).
///
/// Statement mode (a pooler that switches server connections between the statements of a transaction) is never
/// supported: the store's writes are multi-statement transactions.
public enum PostgresPooler: String, Sendable, CaseIterable {
    case none
    case transaction
}
