public import AttestGuardStore

/// The verdict's facts on the embedded store: the key and the exact parts that every request asks for (velocity sums,
/// labels, distinct counts) in one statement (``SQLiteExactFactsStatement``), then the facts that change about daily,
/// which the process mostly holds, as single reads. Each statement costs this store a hop to SQLiteNIO's thread and
/// back, about half of an assertion's CPU here: the embedded store is for loads that fit in that, and PostgreSQL's
/// one-statement answer is the fast path.
extension SQLiteRiskStore {
    public func scoringFacts(_ query: ScoringFactsQuery) async throws -> ScoringFacts {
        try await scoringFacts(query, knownKey: nil)
    }

    /// `knownKey`: the key's row as the caller already holds it (the commit returns it), read only when it is not
    /// the query's key.
    func scoringFacts(_ query: ScoringFactsQuery, knownKey: KeyRecord?) async throws -> ScoringFacts {
        let held = query.heldKey(knownKey)
        guard let statement = SQLiteExactFactsStatement(query, keyHeld: held != nil) else {
            return try await scoringFactsFromSingleReads(query, knownKey: knownKey)
        }
        var exact = ScoringFacts()
        exact.key = held
        try statement.read(try await read(statement.sql, statement.binds), into: &exact)
        // The facts that change about daily, from the key the statement read or the caller held; none keyed when
        // there is no such key.
        var daily = query
        daily.velocity = []
        daily.labelSubjects = []
        daily.distinct = []
        if exact.key == nil { daily.keyId = nil }
        var facts = try await scoringFactsFromSingleReads(daily, knownKey: exact.key)
        facts.velocity = exact.velocity
        facts.labels = exact.labels
        facts.distinct = exact.distinct
        return facts
    }
}
