import AttestVocabulary
public import AttestGuardEngine
public import Foundation
public import Logging
import Metrics
public import RiskRules
import Synchronization

/// Reloads the rule set in force from its directory: on request (`POST /v1/admin/rules/reload`) and when the files
/// change (``ReloadWatchService`` polls them). A set with problems never replaces the one in force: its problems
/// are logged, counted in `attestguard_rules_reloads_total{result="rejected"}`, turn
/// `attestguard_rules_last_reload_successful` to 0 and are reported by `GET /v1/admin/rules` until a good set loads. The swap is atomic (``RuleSetHolder``).
public final class RuleSetReloader: Sendable {
    /// What `GET /v1/admin/rules` reports for this process.
    public struct Status: Sendable {
        public var directory: String?
        public var version: String
        public var ruleCount: Int
        public var loadedAt: Date
        /// Problems of the last rejected attempt since the last successful load.
        public var rejected: [RuleSetError]
        public var rejectedAt: Date?
        /// The shadow set's version, when one is configured.
        public var shadowVersion: String?
    }

    public let holder: RuleSetHolder
    public let directory: String?
    /// The shadow set and its directory, reloaded with the live one.
    public let shadow: (holder: RuleSetHolder, directory: String)?
    package let clock: any EngineClock
    package let logger: Logger
    private let state: Mutex<Status>

    public init(holder: RuleSetHolder, directory: String?, shadow: (holder: RuleSetHolder, directory: String)? = nil, clock: any EngineClock, logger: Logger) {
        self.holder = holder
        self.directory = directory
        self.shadow = shadow
        self.clock = clock
        self.logger = logger
        let current = holder.ruleSet
        self.state = Mutex(Status(
            directory: directory, version: current.version, ruleCount: current.rules.count, loadedAt: clock.now(), rejected: [],
            shadowVersion: shadow?.holder.ruleSet.version
        ))
        Gauge(label: MetricFamily.rulesLoaded.name, dimensions: [("version", current.version)]).record(1)
        // Both series exist from the start at 0, so that `increase()` sees a process's first rejected reload.
        for result in ["loaded", "rejected"] {
            Counter(label: MetricFamily.rulesReloads.name, dimensions: [("result", result)]).increment(by: 0)
        }
        Self.recordReload(successful: true, loadedAt: status.loadedAt)
    }

    /// The last attempt's outcome, and when the rules in force loaded.
    private static func recordReload(successful: Bool, loadedAt: Date) {
        Gauge(label: MetricFamily.rulesLastReloadSuccessful.name).record(successful ? 1 : 0)
        Gauge(label: MetricFamily.rulesLastReloadSuccessTimestamp.name).record(loadedAt.timeIntervalSince1970)
    }

    public var status: Status { state.withLock { $0 } }

    /// Loads the directory again; returns the status after the attempt. Without a directory nothing changes.
    @discardableResult
    public func reload(reason: String) -> Status {
        reloadShadow(reason: reason)
        guard let directory else { return status }
        do {
            let ruleSet = try RuleSetLoader.load(directory: directory)
            let previous = holder.replace(with: ruleSet)
            let shadowVersion = shadow?.holder.ruleSet.version
            // `loadedAt` is when the rules in force changed: a reload of the same files keeps it, so that the
            // rule-hit alert's "since the last change" window opens on a change only.
            let now = previous.version == ruleSet.version ? status.loadedAt : clock.now()
            state.withLock { status in
                status = Status(
                    directory: directory, version: ruleSet.version, ruleCount: ruleSet.rules.count, loadedAt: now, rejected: [],
                    shadowVersion: shadowVersion
                )
            }
            if previous.version != ruleSet.version {
                logger.notice("rules reloaded", metadata: [
                    "reason": .string(reason), "version": .string(ruleSet.version), "previous": .string(previous.version),
                    "rules": .stringConvertible(ruleSet.rules.count),
                ])
                Gauge(label: MetricFamily.rulesLoaded.name, dimensions: [("version", previous.version)]).record(0)
                Gauge(label: MetricFamily.rulesLoaded.name, dimensions: [("version", ruleSet.version)]).record(1)
            }
            Counter(label: MetricFamily.rulesReloads.name, dimensions: [("result", "loaded")]).increment()
            Self.recordReload(successful: true, loadedAt: now)
        } catch {
            let now = clock.now()
            state.withLock { status in
                status.rejected = error.errors
                status.rejectedAt = now
            }
            for problem in error.errors {
                logger.error("rule reload rejected; the rules in force stay", metadata: ["reason": .string(reason), "problem": .string(problem.description)])
            }
            Counter(label: MetricFamily.rulesReloads.name, dimensions: [("result", "rejected")]).increment()
            Self.recordReload(successful: false, loadedAt: status.loadedAt)
        }
        return status
    }

    /// The shadow set: replaced when its files load, kept (and its problems logged) when they do not.
    private func reloadShadow(reason: String) {
        guard let shadow else { return }
        do {
            let ruleSet = try RuleSetLoader.load(directory: shadow.directory)
            shadow.holder.replace(with: ruleSet)
            state.withLock { $0.shadowVersion = ruleSet.version }
        } catch {
            for problem in error.errors {
                logger.error("shadow rule reload rejected; the shadow set stays", metadata: ["reason": .string(reason), "problem": .string(problem.description)])
            }
        }
    }
}
