/// One numbered, append-only schema change from `SQL/<dialect>/NNNN_name.sql`.
public struct Migration: Sendable, Equatable {
    public let version: Int
    public let name: String
    public let sql: String
    /// The SQL split into single statements (drivers prepare one statement at a time), once: every store that opens
    /// checks its schema against them, and splitting the whole history costs more than the check.
    public let statements: [String]

    public init(version: Int, name: String, sql: String) {
        self.version = version
        self.name = name
        self.sql = sql
        self.statements = SQLScript.statements(in: sql)
    }
}

/// What a database's applied migrations mean for this build.
public struct SchemaStatus: Sendable, Equatable {
    /// The highest applied version (0 for an empty database).
    public var appliedVersion: Int
    /// The highest version this build knows.
    public var knownVersion: Int
    /// Known migrations not yet applied, in order.
    public var pending: [Migration]

    /// Compares the applied versions with the known migrations. Throws ``StoreError/Code/schemaTooNew`` when the
    /// database is ahead of this build: an older binary must never write to a newer schema.
    public init(applied: Set<Int>, known: [Migration]) throws {
        let knownVersion = known.map(\.version).max() ?? 0
        let appliedVersion = applied.max() ?? 0
        if let unknown = applied.subtracting(known.map(\.version)).min() {
            throw StoreError(
                .schemaTooNew,
                "the database has migration \(unknown) (schema \(appliedVersion)), this build knows up to \(knownVersion): upgrade AttestGuard"
            )
        }
        self.appliedVersion = appliedVersion
        self.knownVersion = knownVersion
        self.pending = known.filter { !applied.contains($0.version) }
    }

    /// Throws ``StoreError/Code/schemaOutdated`` unless every known migration is applied.
    public func requireCurrent() throws {
        guard pending.isEmpty else {
            throw StoreError(
                .schemaOutdated,
                "the database schema is at \(appliedVersion), this build needs \(knownVersion): run `attestguard migrate`"
            )
        }
    }
}
