public import AppleReceipts
public import AppleServices
import Foundation
public import Logging
public import AttestGuardStorage

/// Keeps every active key's receipt fresh: leases due receipts from the store, redeems them with Apple (or the
/// fake), verifies and stores the answers. Runs as a one-shot batch (`attestguard receipts refresh`, nightly)
/// or continuously beside the server; any number of processes can share one PostgreSQL queue.
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
        logger: Logger = Logger(label: "attestguard.receipts")
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
            metrics: metrics
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
        while true {
            try Task.checkCancellation()
            try await runPass { result in
                let report = await tally.record(result)
                if result.isSettled { progress(Progress(report: report, elapsed: ContinuousClock.now - started)) }
            }
            let backlog = try await store.receiptBacklog(at: clock.now(), retryingSince: startedAt)
            metrics.recordBacklog(backlog)
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
        return report
    }

    /// Refreshes due receipts until the task is cancelled, looking for new work every poll interval.
    public func runContinuously() async throws {
        while !Task.isCancelled {
            do {
                try await runPass { _ in }
                metrics.recordBacklog(try await store.receiptBacklog(at: clock.now(), retryingSince: clock.now()))
                // The day's baselines after its first pass; a failure is the job's to log, and is retried next pass.
                _ = try? await baselines?.runIfDue()
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

    /// One pass: `concurrency` workers drain what is due now.
    func runPass(_ record: @escaping @Sendable (ReceiptRefreshResult) async -> Void) async throws {
        let queue = LeasedReceiptQueue(store: store, owner: owner, settings: settings, clock: clock)
        let refresher = self.refresher
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<max(1, settings.concurrency) {
                group.addTask {
                    while let lease = try await queue.next() {
                        await record(try await refresher.refresh(lease))
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

    func record(_ result: ReceiptRefreshResult) -> ReceiptBatchReport {
        report.record(result)
        return report
    }
}
