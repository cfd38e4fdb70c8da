public import AttestGuardStore
import Foundation
import Synchronization

/// Counts attestation outcomes for the automatic rollout: one atomic increment of the app's counter for the ramp
/// period holding now. Only apps with a ramp are counted (the counters serve the ramp alone, and an app without one
/// costs no write); an outcome of any other app is accepted and dropped.
///
/// An app's own report (``report(_:appId:user:)``) counts once per user, outcome and period, so that the counters
/// count distinct users and one signed-in account cannot move the ramp (a burst of `rate_limited` from one user once
/// paused a rollout); a user's reports beyond ``ReportQuota/maximumPerMinute`` a minute are refused
/// `rate_limited` before any write.
public struct AttestationOutcomes: Sendable {
    let store: any RiskStore
    let apps: AppCatalog
    let clock: any EngineClock
    let keying: VelocityKeying
    let quota: ReportQuota

    /// Counts one `outcome` the server itself observed (`accepted`); returns whether it was counted (false: the app
    /// does not ramp).
    @discardableResult
    static func count(_ outcome: AttestationOutcomeKind, appId: String, store: any RiskStore, apps: AppCatalog, clock: any EngineClock) async throws -> Bool {
        guard let ramp = apps.configuredPolicy(for: appId)?.attestationRamp else { return false }
        try await store.countAttestationOutcome(appId: appId, periodStart: ramp.periodStart(of: clock.now()), outcome: outcome, count: 1)
        apps.rampMetrics.count(outcome, appId: appId)
        return true
    }

    /// Counts one `outcome` an app reported for `user`; returns whether it was counted (false: the app does not
    /// ramp, or the user reported this outcome in this period already). Throws `rate_limited` past the user's quota.
    @discardableResult
    public func report(_ outcome: AttestationOutcomeKind, appId: String, user: String) async throws -> Bool {
        guard let ramp = apps.configuredPolicy(for: appId)?.attestationRamp else { return false }
        let now = clock.now()
        if let retryAt = quota.take(appId: appId, user: user, at: now) {
            throw EngineError(.rateLimited(retryAt: retryAt), code: .rateLimited, "this user reported too many attestation outcomes in a minute")
        }
        let reporter = keying.subject(.user, user)
        let counted = try await store.countAttestationOutcome(appId: appId, periodStart: ramp.periodStart(of: now), outcome: outcome, reporter: reporter)
        if counted { apps.rampMetrics.count(outcome, appId: appId) }
        return counted
    }

    /// A per-process bound on one user's outcome reports: at most ``maximumPerMinute`` in a UTC minute per app. Its
    /// memory is the users of the current minute, at most ``maximumUsers`` (past that, the minute starts over).
    public final class ReportQuota: Sendable {
        public static let maximumPerMinute = 10
        static let maximumUsers = 100_000

        private struct Window {
            var minute: Int64 = .min
            var counts: [String: Int] = [:]
        }

        private let window = Mutex(Window())

        public init() {}

        /// Counts one report; returns when the next one is allowed when this one is over the bound.
        func take(appId: String, user: String, at now: Date) -> Date? {
            let minute = Int64((now.timeIntervalSince1970 / 60).rounded(.down))
            return window.withLock { window in
                if window.minute != minute || window.counts.count >= Self.maximumUsers { window = Window(minute: minute) }
                let key = appId + "\u{0}" + user
                let taken = window.counts[key, default: 0]
                guard taken < Self.maximumPerMinute else { return Date(timeIntervalSince1970: TimeInterval((minute + 1) * 60)) }
                window.counts[key] = taken + 1
                return nil
            }
        }
    }
}

extension Engine {
    /// The rollout's outcome counters.
    public var attestationOutcomes: AttestationOutcomes {
        AttestationOutcomes(store: store, apps: apps, clock: clock, keying: settings.velocityKeying, quota: outcomeReportQuota)
    }
}
