import PostgresNIO
import AttestGuardStore

extension PostgresStoreConfiguration {
    /// The startup parameter a URL's `search_path` becomes; a pooler in transaction mode does not carry it.
    static let searchPathParameter = "search_path"

    /// Throws ``StoreError/Code/invalidConfiguration`` when ``pooler`` cannot work with the rest of the configuration:
    /// in transaction mode a per-session setting (the URL's `search_path`, sent as a startup parameter) would be lost
    /// between transactions, and PgBouncer refuses the connection ("unsupported startup parameter: search_path").
    public func checkPooler() throws {
        guard pooler == .transaction else { return }
        if client.options.additionalStartupParameters.contains(where: { $0.0 == Self.searchPathParameter }) {
            throw StoreError(
                .invalidConfiguration,
                "a search_path in the database URL does not work with pooler transaction (the pooler does not carry it"
                    + " from one transaction to the next): remove it and give the role a default search_path"
                    + " (ALTER ROLE ... SET search_path = ...), or name the schema after the role"
            )
        }
    }
}
