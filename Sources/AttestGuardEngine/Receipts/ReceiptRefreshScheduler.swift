public import AppleReceipts
public import AppleServices
import Foundation
public import Logging
public import AttestGuardStore
/// Keeps the receipts of keys in use fresh: leases due receipts from the store, redeems them with Apple (or the
/// fake), verifies and stores the answers. Runs as a one-shot batch (`attestguard receipts refresh`, nightly)
/// or continuously beside the server; any number of processes can share one PostgreSQL queue.
///
/// Apple rate-limits redemption, so keys unused for ``ReceiptRefreshSettings/dormantAfter`` leave the schedule at
/// the start of each pass, their first redemption after attestation excepted; a key's next use brings its receipt
/// back, due at once (``ReceiptScheduleStore/recordKeyUse(_:)``, written behind the request path).
public struct ReceiptRefreshScheduler: Sendable {
    /// Progress of a batch, for progress bars and log lines.
    public struct Progress: Sendable, Hashable {
        /// The tally so far.
        public var report: ReceiptBatchReport
        /// Wall time since the batch started.
        public var elapsed: Duration

        /// Receipts whose round ended.
        public var settled: Int { report.settled }
    }

    public let store: any RiskStore
    public let settings: ReceiptRefreshSettings
    public let clock: any EngineClock
    /// Names this process's leases (`host:pid:random` by default).
    public let owner: String
    /// The daily risk-metric baseline job, run at the end of a batch and once a UTC day by the continuous loop.
    public var baselines: RiskBaselineJob?
    /// The nightly sweep, run after the baselines at the end of a batch, and started beside the continuous loop once
    /// a UTC day by the one process sharing the store that claims the day; `nil` without `rules.sweepDirectory`.
    public var sweep: KeySweepJob?
    let refresher: ReceiptRefresher
    let metrics: ReceiptRefreshMetrics
    let logger: Logger

    public init(
        store: any RiskStore,
        redeemer: any ReceiptRedeeming,
        verifier: ReceiptVerifier,
        settings: ReceiptRefreshSettings,
        clock: any EngineClock,
        owner: String = ReceiptRefreshScheduler.defaultOwner(),
        logger: Logger = Logger(label: "attestguard.receipts"),
        factsCache: ScoringFactsCache? = nil
    ) {
        let metrics = ReceiptRefreshMetrics()
        self.store = store
        self.settings = settings
        self.clock = clock
        self.owner = owner
        self.metrics = metrics
        self.logger = logger
        self.refresher = ReceiptRefresher(
            store: store,
            redeemer: redeemer,
            verifier: verifier,
            settings: settings,
            clock: clock,
            limiter: RedemptionRateLimiter(rates: settings.requestsPerSecond, clock: clock),
            metrics: metrics,
            factsCache: factsCache
        )
    }

    /// `host:pid:random`, unique per process run.
    public static func defaultOwner() -> String {
        let random = UUID().uuidString.prefix(8).lowercased()
        return "\(ProcessInfo.processInfo.hostName):\(ProcessInfo.processInfo.processIdentifier):\(random)"
    }

    /// Refreshes every receipt due now, retrying transient failures, until nothing due, held by another worker or
    /// backing off remains. Receipts leased by a crashed worker are taken over when their lease expires.
    /// - Parameter progress: Called after each settled receipt.
    public func runBatch(progress: @escaping @Sendable (Progress) -> Void = { _ in }) async throws -> ReceiptBatchReport {
        let startedAt = clock.now()
        let started = ContinuousClock.now
        let tally = BatchTally()
        try await rejoinUsedReceipts()
        while true {
            try Task.checkCancellation()
            await tally.record(try await parkDormantReceipts())
            try await runPass { appId, result in
                let report = await tally.record(result, appId: appId)
                if result.isSettled { progress(Progress(report: report, elapsed: ContinuousClock.now - started)) }
            }
            let backlog = try await store.receiptBacklog(at: clock.now(), retryingSince: startedAt)
            metrics.recordBacklog(backlog)
            await tally.record(dormant: backlog.dormant)
            if backlog.isEmpty { break }
            if backlog.due > 0 { continue }
            // Only work held by others or backing off remains: wait for the first of it, looking again now and then.
            let poll = clock.now().addingTimeInterval(settings.pollInterval.timeInterval)
            try await clock.sleep(until: min(backlog.nextAvailableAt ?? poll, poll))
        }
        var report = await tally.report
        if let baselines {
            // A failed baseline is logged by the job; the receipts the batch refreshed stand.
            report.baselinesComputed = try? await baselines.run().count
        }
        if let sweep {
            // A failed sweep is logged; the receipts the batch refreshed stand, and the next night sweeps again.
            do {
                report.sweep = try await sweep.run()
            } catch {
                logger.warning("key sweep failed", metadata: ["error": .string(String(describing: error))])
            }
        }
        return report
    }

    /// Refreshes due receipts until the task is cancelled, looking for new work every poll interval. The day's sweep
    /// runs beside the passes, so that a night of every key never holds a redemption back; cancelling the refresh
    /// cancels it.
    public func runContinuously() async throws {
        await withDiscardingTaskGroup { group in
            var rejoined = false
            while !Task.isCancelled {
                do {
                    if !rejoined {
                        try await rejoinUsedReceipts()
                        rejoined = true
                    }
                    _ = try await parkDormantReceipts()
                    try await runPass { _, _ in }
                    metrics.recordBacklog(try await store.receiptBacklog(at: clock.now(), retryingSince: clock.now()))
                    // The day's baselines after its first pass; a failure is the job's to log, and is retried next pass.
                    _ = try? await baselines?.runIfDue()
                    // The day's sweep, by the process that claims it; a claim the store does not answer is asked
                    // for again after the next pass.
                    if let sweep, let day = try? await sweep.claimToday(owner: owner) {
                        group.addTask { await self.sweepInBackground(sweep, day: day) }
                    }
                } catch is CancellationError {
                    return
                } catch {
                    logger.warning("receipt refresh pass failed", metadata: ["error": .string(String(describing: error))])
                }
                do {
                    try await clock.sleep(until: clock.now().addingTimeInterval(settings.pollInterval.timeInterval))
                } catch {
                    return
                }
            }
        }
    }

    /// The day's sweep in the continuous refresher: a failure is logged (the job gave the day up for another process).
    private func sweepInBackground(_ sweep: KeySweepJob, day: String) async {
        do {
            try await sweep.runClaimed(day: day, owner: owner)
        } catch is CancellationError {
            return
        } catch let stopped as KeySweepStopped {
            logger.notice("key sweep stopped: another process sweeps the day", metadata: ["day": .string(day), "reason": .string(stopped.description)])
        } catch {
            logger.warning("key sweep failed; another process may take its day, this one sweeps the next", metadata: [
                "day": .string(day), "error": .string(String(describing: error)),
            ])
        }
    }

    /// Takes the receipts of keys unused since the dormancy bound out of the schedule, a bounded statement at a time.
    func parkDormantReceipts() async throws -> DormantParking {
        guard let dormantAfter = settings.dormantAfter else { return DormantParking() }
        var parking = DormantParking()
        while true {
            let now = clock.now()
            let round = try await store.parkDormantReceipts(
                unusedSince: now.addingTimeInterval(-dormantAfter.timeInterval), at: now, limit: Self.parkingBatch
            )
            parking.parkedPerApp.merge(round.parkedPerApp, uniquingKeysWith: +)
            metrics.recordParking(round)
            if round.parked < Self.parkingBatch { break }
        }
        if parking.parked > 0 {
            logger.info("receipts of unused keys left the refresh schedule", metadata: [
                "keys": .stringConvertible(parking.parked), "dormant_after": .string("\(settings.dormantAfter.map(\.description) ?? "never")"),
            ])
        }
        return parking
    }

    /// Brings back the dormant receipts of keys used within the bound (all of them when there is no bound): a bound
    /// that grew, or was switched off, since they were parked.
    func rejoinUsedReceipts() async throws {
        let cutoff = settings.dormantAfter.map { clock.now().addingTimeInterval(-$0.timeInterval) } ?? .distantPast
        let rejoined = try await store.rejoinDormantReceipts(usedSince: cutoff)
        if rejoined > 0 {
            logger.info("receipts of keys in use rejoined the refresh schedule", metadata: ["keys": .stringConvertible(rejoined)])
        }
    }

    /// Receipts parked per statement, so that parking a large install base never holds its rows for long.
    static let parkingBatch = 1_000

    /// One pass: `concurrency` workers drain what is due now.
    func runPass(_ record: @escaping @Sendable (_ appId: String, ReceiptRefreshResult) async -> Void) async throws {
        let queue = LeasedReceiptQueue(store: store, owner: owner, settings: settings, clock: clock)
        let refresher = self.refresher
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<max(1, settings.concurrency) {
                group.addTask {
                    while let lease = try await queue.next() {
                        await record(lease.appId, try await refresher.refresh(lease))
                    }
                }
            }
            try await group.waitForAll()
        }
    }
}

/// The batch's running report, shared by its workers.
private actor BatchTally {
    private(set) var report = ReceiptBatchReport()

    func record(_ result: ReceiptRefreshResult, appId: String) -> ReceiptBatchReport {
        report.record(result, appId: appId)
        return report
    }

    func record(_ parking: DormantParking) {
        report.record(parking)
    }

    func record(dormant: Int) {
        report.dormant = dormant
    }
}
