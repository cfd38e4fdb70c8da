import AppleServices
import ArgumentParser
import AttestGuardEngine
import AttestGuardRuntime
import Foundation
import Logging
import RiskRules

/// `attestguard receipts refresh`: the nightly batch. Redeems every due receipt, retrying transient failures,
/// and exits when nothing due, leased or backing off remains.
struct RefreshReceipts: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "refresh",
        abstract: "Redeem every due receipt once (a cron-friendly batch); several processes may share one PostgreSQL.",
        discussion: """
            With rules.sweepDirectory set, it then sweeps every active key with that rule set (see `attestguard \
            receipts sweep`) and the summary's `sweep` holds each app's keys and flagged keys.

            Prints one JSON summary line on stdout. Progress goes to stderr: a bar on a terminal, a log line every \
            --log-every seconds otherwise.

            Exit status: 0 every due receipt settled; 1 some receipts gave up or were refused by Apple (see the \
            summary); 2 usage or configuration error; 3 the store or Apple credentials are unusable.
            """
    )

    @OptionGroup var options: ConfigurationOption

    @Option(help: "Override receipts.refresh.concurrency: redemptions in flight at once.")
    var concurrency: Int?

    @Option(help: "Override receipts.refresh.leaseSeconds: how long leased receipts are held before others may take them.")
    var leaseSeconds: Int?

    @Option(help: "Seconds between progress log lines when stderr is not a terminal.")
    var logEvery: Int = 10

    func validate() throws {
        if let concurrency, !(1...1_024).contains(concurrency) { throw ValidationError("--concurrency must be in 1...1024") }
        if let leaseSeconds, !(1...3_600).contains(leaseSeconds) { throw ValidationError("--lease-seconds must be in 1...3600") }
        guard logEvery >= 1 else { throw ValidationError("--log-every must be at least 1") }
    }

    func run() async throws {
        var configuration = try await options.load()
        if let concurrency { configuration.engine.receiptRefresh.concurrency = concurrency }
        if let leaseSeconds { configuration.engine.receiptRefresh.leaseDuration = .seconds(leaseSeconds) }
        var logger = Logger(label: "attestguard.receipts")
        logger.logLevel = .warning
        let clock = SystemClock()
        guard let apple = AppleClients(configuration.apple, clock: clock) else {
            Self.fail("no Apple credentials: set apple.teamId, apple.keyId and apple.privateKeyFile (or privateKeyEnv)", code: 3)
        }
        let store: OpenedStore
        do {
            store = try await OpenedStore.open(configuration.database, clock: { clock.now() }, logger: logger)
        } catch {
            Self.fail("cannot open the store: \(error)", code: 3)
        }
        let services = store.services
        var scheduler = ReceiptRefreshScheduler(store: store, apple: apple, configuration: configuration, clock: clock, logger: logger)
        // The sweep after the batch (and its baselines): its rule set loads before any receipt is redeemed.
        let sweepRules: RuleSet?
        do {
            sweepRules = try RuleSetStartup.loadSweep(configuration, logger: logger)
        } catch {
            await store.close()
            Self.fail("\(error)", code: 2)
        }
        if let sweepRules {
            scheduler.sweep = KeySweepJob(engine: SweepKeys.engine(store: store.store, configuration: configuration, ruleSet: sweepRules), ruleSet: sweepRules)
        }
        let printer = BatchProgressPrinter(logEvery: .seconds(logEvery))
        let outcome: Result<ReceiptBatchReport, any Error> = await {
            do {
                return .success(try await withThrowingTaskGroup(of: ReceiptBatchReport?.self) { group in
                    for service in services { group.addTask { try await service.run(); return nil } }
                    _ = try await store.schemaVersion()
                    let start = try await store.store.receiptBacklog(at: clock.now(), retryingSince: clock.now())
                    printer.begin(total: start.due + start.leased + start.retrying)
                    let report = try await scheduler.runBatch { printer.update($0) }
                    group.cancelAll()
                    return report
                })
            } catch {
                return .failure(error)
            }
        }()
        await store.close()
        switch outcome {
        case .failure(let error):
            printer.finish()
            Self.fail("receipt refresh stopped: \(error)", code: 3)
        case .success(let report):
            printer.finish()
            print(BatchSummary(report: report, elapsed: printer.elapsed).json)
            if !report.isClean { throw ExitCode(1) }
        }
    }

    private static func fail(_ message: String, code: Int32) -> Never {
        FileHandle.standardError.write(Data("attestguard receipts refresh: \(message)\n".utf8))
        Foundation.exit(code)
    }
}
