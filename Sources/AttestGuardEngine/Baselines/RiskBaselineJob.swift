public import AttestGuardStore
public import Foundation
public import Logging
import Synchronization

/// The daily risk-metric baseline job: for each app, the distribution of its active keys' current risk metrics
/// (``RiskMetricBaseline``), stored once per app and UTC day. It runs at the end of `attestguard receipts refresh`
/// and, in the continuous refresher, after the first pass of each UTC day (``runIfDue()``). Any number of processes
/// may run it: the store computes a given app's day once (``RiskBaselineStore/computeRiskBaseline(appId:day:at:by:)``).
public struct RiskBaselineJob: Sendable {
    let store: any RiskBaselineStore
    /// The apps whose baselines are computed (the configured apps).
    public let appIds: [String]
    let clock: any EngineClock
    let owner: String
    let logger: Logger
    /// The UTC day of the last run that succeeded, shared by copies of the job.
    private let lastDay = UTCDayMark()

    public init(store: any RiskBaselineStore, appIds: [String], clock: any EngineClock, owner: String, logger: Logger) {
        self.store = store
        self.appIds = appIds.sorted()
        self.clock = clock
        self.owner = owner
        self.logger = logger
    }

    /// `YYYY-MM-DD` of `date` in UTC.
    public static func day(of date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
    }

    /// Computes today's baseline of every app that has none yet; returns the baselines this call computed. One
    /// app's failure is logged and does not stop the others; the first failure is rethrown at the end.
    @discardableResult
    public func run() async throws -> [RiskMetricBaseline] {
        let now = clock.now()
        let day = Self.day(of: now)
        var computed: [RiskMetricBaseline] = []
        var firstFailure: (any Error)?
        for appId in appIds {
            do {
                if case .computed(let baseline) = try await store.computeRiskBaseline(appId: appId, day: day, at: now, by: owner) {
                    computed.append(baseline)
                    logger.info("risk-metric baseline computed", metadata: [
                        "app": .string(appId), "day": .string(day), "keys": .stringConvertible(baseline.keyCount),
                        "p50": .string(baseline.p50.map(String.init) ?? "-"), "p99": .string(baseline.p99.map(String.init) ?? "-"),
                    ])
                }
            } catch {
                logger.warning("risk-metric baseline not computed", metadata: ["app": .string(appId), "error": .string(String(describing: error))])
                if firstFailure == nil { firstFailure = error }
            }
        }
        if let firstFailure { throw firstFailure }
        lastDay.value.withLock { $0 = day }
        return computed
    }

    /// ``run()`` unless this job already ran successfully today (UTC); for the continuous refresher's loop.
    @discardableResult
    public func runIfDue() async throws -> [RiskMetricBaseline] {
        let today = Self.day(of: clock.now())
        guard lastDay.value.withLock({ $0 }) != today else { return [] }
        return try await run()
    }
}

/// The UTC day a daily job last ran, shared by the copies of the job that hold it.
final class UTCDayMark: Sendable {
    let value = Mutex<String?>(nil)
}
