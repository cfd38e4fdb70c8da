import AttestVocabulary
public import Foundation
import PostgresNIO
public import AttestGuardStore

extension PostgresRiskStore {
    public func appendDecisions(_ entries: [DecisionLogEntry]) async throws {
        guard !entries.isEmpty else { return }
        // Each day's partition is created once per process, not before every batch.
        for day in Set(entries.map { DecisionLogPartition.day(of: $0.decidedAt) }) {
            let name = DecisionLogPartition.name(day)
            guard !knownPartitions.withLock({ $0.contains(name) }) else { continue }
            try await createPartition(day)
            knownPartitions.withLock { _ = $0.insert(name) }
        }
        do {
            try await insertDecisions(entries)
        } catch let error as StoreError where String(describing: error).contains("23514") {
            // No partition for a row: one this process knew was dropped behind its back. Forget them all, so the
            // next flush creates what is missing.
            knownPartitions.withLock { $0.removeAll() }
            throw error
        }
    }

    private func insertDecisions(_ entries: [DecisionLogEntry]) async throws {
        _ = try await execute(InsertDecisionsStatement(entries: entries))
    }

    public func decisions(since: Date, after cursor: DecisionLogEntry?, limit: Int) async throws -> [DecisionLogEntry] {
        let afterTime = cursor?.decidedAt ?? Date(timeIntervalSince1970: 0)
        let afterSequence = cursor?.sequence ?? -1
        return try await laggingRows(
            """
            SELECT * FROM decision_log
            WHERE decided_at >= \(since) AND (decided_at, seq) > (\(afterTime), \(afterSequence))
            ORDER BY decided_at, seq LIMIT \(Int32(clamping: max(limit, 0)))
            """
        ).map(DecisionLogEntry.init(postgres:))
    }

    /// Drops whole day partitions that end at or before `before`; returns how many.
    public func purgeDecisions(before: Date) async throws -> Int {
        let partitions = try await rows(
            """
            SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent
            WHERE p.relname = 'decision_log' AND p.relnamespace = c.relnamespace AND p.relnamespace = to_regnamespace(current_schema())
            """
        ).map { try $0.decode(String.self) }
        let cutoff = DecisionLogPartition.name(DecisionLogPartition.day(of: before))
        var dropped = 0
        for name in partitions where name.hasPrefix("decision_log_") && name.count == cutoff.count && name < cutoff {
            _ = try await rows(PostgresQuery(unsafeSQL: "DROP TABLE IF EXISTS \(name)"))
            knownPartitions.withLock { _ = $0.remove(name) }
            dropped += 1
        }
        return dropped
    }

    /// Creates the day's partition unless it exists, and sets its autovacuum options (also on one an older
    /// version created): ``DecisionLogPartition/storageOptions``.
    private func createPartition(_ day: Date) async throws {
        let next = day.addingTimeInterval(86_400)
        let name = DecisionLogPartition.name(day)
        let options = DecisionLogPartition.storageOptions
        // The name and bounds are made here from a date, never from input; IF NOT EXISTS makes racing writers safe.
        do {
            _ = try await rows(PostgresQuery(unsafeSQL: """
                CREATE TABLE IF NOT EXISTS \(name) PARTITION OF decision_log
                FOR VALUES FROM ('\(DecisionLogPartition.literal(day))') TO ('\(DecisionLogPartition.literal(next))')
                WITH (\(options))
                """))
        } catch let error as StoreError where String(describing: error).contains("42P07") || String(describing: error).contains("23505") {
            // Another process created it between our check and our CREATE.
        }
        // A partition an older version created lacks the options. Best effort: the log is written either way (the
        // ALTER may find the day dropped, another owner's table, or an anti-wraparound vacuum holding its lock).
        do {
            let lacking = try await rows(
                "SELECT 1 FROM pg_class WHERE oid = to_regclass(\(name)) AND NOT coalesce(reloptions @> ARRAY['autovacuum_enabled=false'], false)"
            )
            if !lacking.isEmpty { _ = try await rows(PostgresQuery(unsafeSQL: "ALTER TABLE IF EXISTS \(name) SET (\(options))")) }
        } catch {
            logger.warning("decision log partition keeps autovacuum on", metadata: ["partition": .string(name), "error": .string(String(describing: error))])
        }
    }
}

/// Day partitions of the decision log: `decision_log_YYYYMMDD`, UTC days.
enum DecisionLogPartition {
    /// No autovacuum or autoanalyze on a partition. Rows are only ever inserted, and a partition is dropped whole,
    /// so a plain vacuum has nothing to reclaim; the one query that reads it (the backtest's range scan in index
    /// order) needs no planner statistics. Left on, PostgreSQL vacuums and analyzes the day's partition again and
    /// again as it grows, each time taking a database process for a while and slowing the verdicts meanwhile.
    /// PostgreSQL still runs its anti-wraparound vacuum on them, whatever this says.
    static let storageOptions = "autovacuum_enabled = false, toast.autovacuum_enabled = false"

    static func day(of date: Date) -> Date {
        Date(timeIntervalSince1970: (date.timeIntervalSince1970 / 86_400).rounded(.down) * 86_400)
    }

    static func name(_ day: Date) -> String {
        let parts = Calendar.utc.dateComponents([.year, .month, .day], from: day)
        return String(format: "decision_log_%04d%02d%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
    }

    static func literal(_ day: Date) -> String {
        let parts = Calendar.utc.dateComponents([.year, .month, .day], from: day)
        return String(format: "%04d-%02d-%02d 00:00:00+00", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
    }
}

extension Calendar {
    static let utc: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()
}

extension DecisionLogEntry {
    init(postgres row: PostgresRow) throws {
        let read = PostgresRowReader(row, table: "decision_log")
        self.init(
            appId: try read("app_id"), decidedAt: try read("decided_at"), endpoint: try read.enumeration("endpoint", as: Endpoint.self),
            keyId: try read("key_id"), userHash: try read("user_hash"), ipHash: try read("ip_hash"), deviceHash: try read("device_hash"),
            decision: try read.enumeration("decision", as: Decision.self), ruleDecision: try read.enumeration("rule_decision", as: Decision.self), score: try read("score"),
            ruleSetVersion: try read("rule_set_version"), fired: try read("fired"), signals: try read("signals")
        )
        sequence = try read("seq")
        requestId = try read("request_id")
        if let shadowDecision = try read("shadow_decision", as: String?.self), let decision = Decision(rawValue: shadowDecision) {
            shadow = ShadowVerdict(
                decision: decision, ruleSetVersion: try read("shadow_rule_set_version", as: String?.self) ?? "",
                fired: try read("shadow_fired", as: String?.self) ?? ""
            )
        }
    }
}
