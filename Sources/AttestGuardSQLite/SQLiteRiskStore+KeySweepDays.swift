public import Foundation
import SQLiteNIO
public import AttestGuardStore

extension SQLiteRiskStore {
    public func claimKeySweepDay(_ day: String, owner: String, at now: Date, staleBefore: Date) async throws -> KeySweepClaim {
        let claimed = try await !query(
            KeySweepDaySQL.claim(day: "?1", owner: "?2", now: "?3", staleBefore: "?4"),
            [.text(day), .text(owner), SQLiteValues.bind(now), SQLiteValues.bind(staleBefore)]
        ).isEmpty
        if claimed { return .claimed }
        let finished = try await query(KeySweepDaySQL.finished(day: "?1"), [.text(day)])
            .first.map { try SQLiteRowReader(row: $0, table: "key_sweep_days").integer("finished") } ?? 0
        return finished > 0 ? .finished : .heldElsewhere
    }

    public func releaseKeySweepDay(_ day: String, owner: String) async throws {
        _ = try await query(
            KeySweepDaySQL.release(day: "?1", owner: "?2", before: "?3"), [.text(day), .text(owner), SQLiteValues.bind(KeySweepDaySQL.released)]
        )
    }

    public func renewKeySweepDay(_ day: String, owner: String, at now: Date) async throws -> Bool {
        try await !query(KeySweepDaySQL.renew(day: "?1", owner: "?2", now: "?3"), [.text(day), .text(owner), SQLiteValues.bind(now)]).isEmpty
    }

    public func finishKeySweepDay(_ day: String, owner: String, at now: Date) async throws {
        _ = try await query(KeySweepDaySQL.finish(day: "?1", owner: "?2", now: "?3"), [.text(day), .text(owner), SQLiteValues.bind(now)])
    }
}
