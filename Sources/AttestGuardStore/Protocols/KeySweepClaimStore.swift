public import Foundation

/// Which process sweeps a UTC day's keys in `serve`'s continuous refresher (schema 35, `key_sweep_days`): one claim
/// per day, renewed while its sweep runs, so that a fleet sweeps once a day. A claim that went unrenewed past a stale
/// bound (its holder died or stopped), or that its holder released, can be taken over; a finished day stays finished.
public protocol KeySweepClaimStore: Sendable {
    /// Claims `day` (`YYYY-MM-DD`, UTC) for `owner` when no one holds it, `owner` already does, or its holder last
    /// renewed it before `staleBefore`; never a finished day.
    func claimKeySweepDay(_ day: String, owner: String, at now: Date, staleBefore: Date) async throws -> KeySweepClaim

    /// Renews `owner`'s claim of an unfinished `day`; `false` when `owner` no longer holds it.
    func renewKeySweepDay(_ day: String, owner: String, at now: Date) async throws -> Bool

    /// Marks `day` finished, when `owner` holds it.
    func finishKeySweepDay(_ day: String, owner: String, at now: Date) async throws

    /// Gives `owner`'s claim of an unfinished `day` up: the next claim by another owner takes it at once.
    func releaseKeySweepDay(_ day: String, owner: String) async throws
}

/// What a claim of a sweep day found.
public enum KeySweepClaim: Sendable, Hashable {
    /// The claimant holds the day now.
    case claimed
    /// Another process holds it, renewed within the stale bound.
    case heldElsewhere
    /// The day's sweep finished.
    case finished
}
