public import Foundation
import SQLiteNIO
public import AttestGuardStore

extension SQLiteRiskStore {
    public func claimKeySweepDay(_ day: String, owner: String, at now: Date, staleBefore: Date) async throws -> Bool {
        try await !query(
            KeySweepDaySQL.claim(day: "?1", owner: "?2", now: "?3", staleBefore: "?4"),
            [.text(day), .text(owner), SQLiteValues.bind(now), SQLiteValues.bind(staleBefore)]
        ).isEmpty
    }

    public func renewKeySweepDay(_ day: String, owner: String, at now: Date) async throws -> Bool {
        try await !query(KeySweepDaySQL.renew(day: "?1", owner: "?2", now: "?3"), [.text(day), .text(owner), SQLiteValues.bind(now)]).isEmpty
    }

    public func finishKeySweepDay(_ day: String, owner: String, at now: Date) async throws {
        _ = try await query(KeySweepDaySQL.finish(day: "?1", owner: "?2", now: "?3"), [.text(day), .text(owner), SQLiteValues.bind(now)])
    }
}
