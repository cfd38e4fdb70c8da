public import AttestGuardStore

/// The verdict's facts on the embedded store: the exact parts that every request asks for (velocity sums, labels,
/// distinct counts) in one statement (``SQLiteExactFactsStatement``), the key and the facts that change about daily
/// as single reads. Each statement costs this store a hop to SQLiteNIO's thread and back, about half of an assertion's
/// CPU here: the embedded store is for loads that fit in that, and PostgreSQL's one-statement answer is the fast path.
extension SQLiteRiskStore {
    public func scoringFacts(_ query: ScoringFactsQuery) async throws -> ScoringFacts {
        try await scoringFacts(query, knownKey: nil)
    }

    /// `knownKey`: the key's row as the caller already holds it (the commit returns it), read only when it is not
    /// the query's key.
    func scoringFacts(_ query: ScoringFactsQuery, knownKey: KeyRecord?) async throws -> ScoringFacts {
        guard let statement = SQLiteExactFactsStatement(query) else {
            return try await scoringFactsFromSingleReads(query, knownKey: knownKey)
        }
        var keyAndDaily = query
        keyAndDaily.velocity = []
        keyAndDaily.labelSubjects = []
        keyAndDaily.distinct = []
        var facts = try await scoringFactsFromSingleReads(keyAndDaily, knownKey: knownKey)
        try statement.read(try await self.query(statement.sql, statement.binds), into: &facts)
        return facts
    }
}
