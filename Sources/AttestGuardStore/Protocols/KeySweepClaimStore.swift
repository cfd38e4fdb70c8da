public import Foundation

/// Which process sweeps a UTC day's keys in `serve`'s continuous refresher (schema 35, `key_sweep_days`): one claim
/// per day, renewed while its sweep runs, so that a fleet sweeps once a day. A claim that went unrenewed past a stale
/// bound (its holder died or stopped) can be taken over; a finished day stays finished.
public protocol KeySweepClaimStore: Sendable {
    /// Claims `day` (`YYYY-MM-DD`, UTC) for `owner` when no one holds it, `owner` already does, or its holder last
    /// renewed it before `staleBefore`; never a finished day. Returns whether `owner` holds it now.
    func claimKeySweepDay(_ day: String, owner: String, at now: Date, staleBefore: Date) async throws -> Bool

    /// Renews `owner`'s claim of an unfinished `day`; `false` when `owner` no longer holds it.
    func renewKeySweepDay(_ day: String, owner: String, at now: Date) async throws -> Bool

    /// Marks `day` finished, when `owner` holds it.
    func finishKeySweepDay(_ day: String, owner: String, at now: Date) async throws
}
