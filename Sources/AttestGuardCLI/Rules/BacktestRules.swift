import ArgumentParser
import AttestGuardEngine
import Foundation
import Logging
import RiskRules
import AttestGuardStore
import AttestVocabulary

/// `attestguard rules backtest --rules CANDIDATE_DIR --since 7d`: replays a candidate rule set over the decision
/// log of the configured store, up to the moment it starts, and prints how decisions would move. It runs beside a
/// server on the same store (see ``BacktestSource``). Exit 0 on a report, 1 when the candidate has problems, 2
/// usage, 3 the store is unusable.
struct BacktestRules: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backtest",
        abstract: "Replay a candidate rule set over logged decisions and show what would change."
    )

    @OptionGroup var options: ConfigurationOption

    @OptionGroup(title: "The candidate rule set") var candidateDirectory: RuleDirectoryOption

    @Option(name: .long, help: "How far back to replay: a duration such as 24h, 7d, 30d.")
    var since: String = "7d"

    @Flag(name: .long, help: "Print the report as JSON.")
    var json = false

    @Flag(name: .long, help: "Measure both rule sets against the stored fraud labels: precision and recall per rule and per set.")
    var labels = false

    func run() async throws {
        guard let window = SignalInput.duration(since), window > 0 else {
            throw ValidationError("--since is a duration such as 24h or 7d, not \(since)")
        }
        let rules = try candidateDirectory.resolve(command: "backtest")
        defer { rules.remove() }
        let candidate = try rules.load()
        let configuration = try await options.load()
        var logger = Logger(label: "attestguard")
        logger.logLevel = .warning
        let clock = SystemClock()
        let source: BacktestSource
        do {
            source = try await BacktestSource.open(configuration.database, clock: { clock.now() }, logger: logger)
        } catch {
            throw Self.failure("cannot open the store: \(error)")
        }
        let started = ContinuousClock.now
        let until = clock.now()
        let from = until.addingTimeInterval(-window)
        let services = source.services
        let outcome: Result<Backtest.Report, any Error> = await {
            do {
                return .success(try await withThrowingTaskGroup(of: Backtest.Report?.self) { group in
                    for service in services { group.addTask { try await service.run(); return nil } }
                    try await source.checkSchema()
                    let decisionLabels = labels ? DecisionLabels(try await source.labels.labels(appId: nil)) : nil
                    let report = try await DecisionLogReplay.report(
                        log: source.log, labels: decisionLabels, candidate: candidate, from: from, until: until
                    )
                    group.cancelAll()
                    return report
                })
            } catch {
                return .failure(error)
            }
        }()
        await source.close()
        switch outcome {
        case .failure(let error):
            throw Self.failure("reading the decision log failed: \(error)")
        case .success(let report):
            let elapsed = ContinuousClock.now - started
            print(
                json
                    ? BacktestReport.json(report, candidate: candidate, labels: labels)
                    : BacktestReport.text(report, candidate: candidate, since: since, elapsed: elapsed, labels: labels)
            )
        }
    }

    /// Says what went wrong and gives the exit code of an unusable store (3); thrown, so that a temporary rule
    /// folder is still removed.
    private static func failure(_ message: String) -> ExitCode {
        FileHandle.standardError.write(Data("attestguard rules backtest: \(message)\n".utf8))
        return ExitCode(3)
    }
}
