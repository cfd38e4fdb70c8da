import AttestVocabulary
import NIOCore
import SQLiteNIO
import AttestGuardStore

/// One statement reading the facts a verdict needs exactly and that change with every request: the key (unless the
/// caller holds it), the velocity sums and the writer's flush record, the labels of the subjects asked for, and the
/// distinct counts. On the embedded store each statement costs a hop to SQLiteNIO's thread and back, more than most of
/// these reads cost SQLite, and a verdict asks for most of them; one statement also reads them all from one snapshot.
///
/// The parts are branches of one `UNION ALL`, each row tagged with its part (`part`: `d` a distinct count, `f` the
/// flush record, `k` the key, `l` a label, `v` a velocity sum) and its place in the order asked (`i`); a label row
/// carries the `labels` table's columns, the key's row the `app_keys` columns a ``KeyRecord`` reads, the others a count
/// (`n`). Every value from the query is bound, never spliced into the text (only the rows' positions and
/// `DistinctCount.maximum` are written into it).
struct SQLiteExactFactsStatement {
    let sql: String
    let binds: [SQLiteData]
    /// How many sums the statement reads: the `v` rows it must answer.
    private let sumCount: Int
    /// How many distinct counts the statement reads: the `d` rows it must answer.
    private let distinctReadCount: Int
    /// Whether the statement reads the key: its row, when the key exists, is the `k` row.
    private let readsKey: Bool

    /// The most distinct counts one statement reads: each is a branch of the compound statement, and SQLite takes at
    /// most 500 (`SQLITE_MAX_COMPOUND_SELECT`).
    static let maximumDistinctCounts = 100
    /// The most parameters one statement binds: a bound well under SQLite's `SQLITE_MAX_VARIABLE_NUMBER` in any build
    /// (32,766 by default), so that a statement's text and parse stay small.
    static let maximumParameters = 30_000

    /// The statement for `query`'s exact parts and its key (unless the caller holds it: `keyHeld`), or nil when it
    /// asks for none of them or for more than one statement takes (the caller then reads each part as its own
    /// statement).
    init?(_ query: ScoringFactsQuery, keyHeld: Bool = false) {
        let keyId = keyHeld ? nil : query.keyId
        guard keyId != nil || !query.velocity.isEmpty || !query.labelSubjects.isEmpty || !query.distinct.isEmpty,
              query.velocity.count <= SQLiteRiskStore.sumsPerStatement,
              query.distinct.count <= Self.maximumDistinctCounts
        else { return nil }
        var parameters = SQLiteParameters()
        let appId = parameters.bind(.text(query.appId))
        var tables: [String] = []
        var branches: [String] = []
        // The key's columns only when the key is read: a statement's columns cost its preparation in every branch.
        let noKey = keyId == nil ? "" : ", \(Self.noKey)"
        if let keyId {
            branches.append(
                """
                SELECT 'k', 0, NULL, k.app_id, \(Self.noLabelBesideApp), \(Self.keyColumns.map { "k.\($0)" }.joined(separator: ", "))
                FROM app_keys AS k WHERE k.app_id = \(appId) AND k.key_id = \(parameters.bind(SQLiteValues.bind(keyId)))
                """
            )
        }
        if !query.velocity.isEmpty {
            tables.append(VelocitySumsStatement.askedTable(query.velocity, binding: &parameters))
            branches.append("SELECT 'v', asked.i, \(VelocitySumsStatement.total), \(Self.noLabel)\(noKey)\n\(VelocitySumsStatement.countedFrom(appId: appId))")
            let writer = parameters.bind(query.velocityWriter.map { .text($0) } ?? .null)
            branches.append("SELECT 'f', 0, \(VelocitySumsStatement.flushedSequence(writer: writer)), \(Self.noLabel)\(noKey)")
        }
        if !query.labelSubjects.isEmpty {
            let rows = query.labelSubjects.map { "(\(parameters.bind(.text($0.kind.rawValue))), \(parameters.bind(.text($0.subject))))" }
            tables.append("asked_labels (kind, subject) AS (VALUES \(rows.joined(separator: ", ")))")
            branches.append(
                """
                SELECT 'l', 0, NULL, l.app_id, l.subject_kind, l.subject, l.source, l.label, l.labelled_at\(noKey)
                FROM asked_labels JOIN labels AS l ON l.app_id = \(appId) AND l.subject_kind = asked_labels.kind AND l.subject = asked_labels.subject
                """
            )
        }
        for (index, read) in query.distinct.enumerated() {
            let series = parameters.bind(.blob(ByteBuffer(bytes: read.series)))
            let since = parameters.bind(.integer(Int(read.since)))
            let excluded = read.excluding.map { parameters.bind(.blob(ByteBuffer(bytes: $0))) }.joined(separator: ", ")
            branches.append(
                """
                SELECT 'd', \(index), (
                    SELECT count(*) FROM (
                        SELECT 1 FROM distinct_sightings
                        WHERE series = \(series) AND last_seen >= \(since) AND member NOT IN (\(excluded)) LIMIT \(DistinctCount.maximum)
                    )
                ), \(Self.noLabel)\(noKey)
                """
            )
        }
        guard parameters.values.count <= Self.maximumParameters else { return nil }
        sql = """
            \(tables.isEmpty ? "" : "WITH \(tables.joined(separator: ", "))")
            \(([Self.columnNames(withKey: keyId != nil)] + branches).joined(separator: "\nUNION ALL\n"))
            ORDER BY part, i, subject_kind, subject, source
            """
        binds = parameters.values
        sumCount = query.velocity.count
        distinctReadCount = query.distinct.count
        readsKey = keyId != nil
    }

    /// The `app_keys` columns a ``KeyRecord`` reads (``KeyRecord/init(sqlite:)``) besides `app_id`, which the key's
    /// row shares with the labels' column of that name.
    private static let keyColumns = [
        "key_id", "user_id", "device_id", "environment", "public_key", "counter", "status", "attestation_sha256", "os_version",
        "attested_at", "last_assertion_at", "status_changed_at", "superseded_by", "registration_challenge_sha256",
        "registration_challenge_expires_at", "validation_category", "bundle_version",
    ]
    /// The key columns of a branch that reads no key, in a statement that reads the key.
    private static let noKey = Array(repeating: "NULL", count: keyColumns.count).joined(separator: ", ")
    /// The label columns but `app_id` of a branch that reads no label.
    private static let noLabelBesideApp = "NULL, NULL, NULL, NULL, NULL"
    /// The label columns of a branch that reads no label.
    private static let noLabel = "NULL, \(noLabelBesideApp)"

    /// The compound's first branch, which names its columns and holds no row: the label columns as the `labels`
    /// table has them (``FraudLabelRecord/init(sqlite:)`` reads them), then, when the statement reads the key, the
    /// key's as `app_keys` has them.
    private static func columnNames(withKey: Bool) -> String {
        """
        SELECT 'x' AS part, 0 AS i, 0 AS n, NULL AS app_id, NULL AS subject_kind, NULL AS subject, NULL AS source, NULL AS label,
               NULL AS labelled_at\(withKey ? ", " + keyColumns.map { "NULL AS \($0)" }.joined(separator: ", ") : "")
        WHERE false
        """
    }

    /// Sets `facts`' key (when the statement reads it; nil when no such key), velocity reading, labels and distinct
    /// counts from the statement's rows.
    func read(_ rows: [SQLiteRow], into facts: inout ScoringFacts) throws {
        var totals = [Int64?](repeating: nil, count: sumCount)
        var distinct = [Int64?](repeating: nil, count: distinctReadCount)
        var flushed: Int64 = 0
        var labels: [FraudLabelRecord] = []
        var key: KeyRecord?
        for row in rows {
            let index = Int(row.column("i")?.integer ?? -1)
            let count = Int64(row.column("n")?.integer ?? 0)
            switch row.column("part")?.string {
            case "v" where totals.indices.contains(index): totals[index] = count
            case "d" where distinct.indices.contains(index): distinct[index] = count
            case "f": flushed = count
            case "k" where readsKey && key == nil: key = try KeyRecord(sqlite: row)
            case "l": labels.append(try FraudLabelRecord(sqlite: row))
            default: throw StoreError(.queryFailed, "scoring facts: an unexpected row (part \(row.column("part")?.string ?? "none"), index \(index))")
            }
        }
        guard !totals.contains(nil), !distinct.contains(nil) else {
            throw StoreError(.queryFailed, "scoring facts: \(rows.count) rows lack a velocity sum or a distinct count")
        }
        if readsKey { facts.key = key }
        if sumCount > 0 { facts.velocity = VelocityReading(totals: totals.compactMap { $0 }, flushedSequence: flushed) }
        facts.labels = labels
        facts.distinct = distinct.compactMap { $0 }
    }
}
