import ArgumentParser
import AttestGuardEngine
import AttestGuardRuntime
import AttestGuardStore
import Foundation
import RiskRules

/// `attestguard receipts sweep [--rules DIR] [--app ID] [--dry-run] [--json]`: the nightly sweep (``KeySweep``).
/// Evaluates the sweep rule set (`rules.sweepDirectory`, or `--rules`) over every active key of the configured apps
/// (or one) and runs the actions of the rules that fire, as the server runs a verdict's; prints what it flagged.
/// Exit 0 swept, 1 some keys or apps were not swept (the report says which), 2 usage or configuration (no sweep rule
/// set, a rule set that does not load, an app that is not configured), 3 the store is unusable.
struct SweepKeys: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sweep",
        abstract: "Evaluate the sweep rule set over every active key and run its rules' actions.",
        discussion: """
            Run it after `attestguard receipts refresh`, so that the rules read each key's fresh risk metric. A dry \
            run counts what the rules would do and changes nothing.

            Exit status: 0 swept; 1 some keys or apps were not swept (see the report); 2 usage or configuration error; \
            3 the store is unusable.
            """
    )

    @OptionGroup var options: ConfigurationOption

    @Option(name: .long, help: "The sweep rule set's directory (default: rules.sweepDirectory).")
    var rules: String?

    @Option(name: .long, help: "Only this app, TEAMID.bundle.id.")
    var app: String?

    @Flag(name: .long, help: "Count what the rules would do; queue and run no action.")
    var dryRun = false

    @Flag(name: .long, help: "Print the report as JSON: {ruleSetVersion, dryRun, startedAt, finishedAt, apps}.")
    var json = false

    func run() async throws {
        let configuration = try await options.load()
        guard let directory = rules ?? configuration.sweepRulesDirectory else {
            throw ValidationError("no sweep rule set: set rules.sweepDirectory or pass --rules DIR")
        }
        let ruleSet: RuleSet
        do {
            ruleSet = try RuleSetArgument.load(directory)
        } catch is ExitCode {
            // The problems are printed; a rule set that does not load is the sweep's configuration.
            throw ExitCode(2)
        }
        if let app, !configuration.apps.contains(where: { $0.appId == app }) { throw ValidationError("app \(app) is not configured") }
        let (appIds, dryRun) = (app.map { [$0] }, self.dryRun)
        let report = try await HistoryStoreSession.reading(command: "receipts sweep", configuration: configuration, writing: !dryRun) { store in
            let engine = Self.engine(store: store, configuration: configuration, ruleSet: ruleSet)
            // What the rules read besides the store's facts: the run-time lists and the baselines, as a server holds them.
            try await KeySweepJob(engine: engine, ruleSet: ruleSet).prepare()
            return try await engine.sweep.run(ruleSet, appIds: appIds, dryRun: dryRun)
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            encoder.dateEncodingStrategy = .iso8601
            print(String(decoding: try encoder.encode(report), as: UTF8.self))
        } else {
            print(Self.text(report), terminator: "")
        }
        if !report.complete { throw ExitCode(1) }
    }

    /// An engine over `store` for a sweep outside a server: the configured apps and settings, `ruleSet` as its rules.
    /// DeviceCheck bit 1 needs no Apple client: a rule's bit is filed in the store and goes to Apple with the next
    /// device token a server sees.
    static func engine(store: any RiskStore, configuration: ServerConfiguration, ruleSet: RuleSet) -> Engine {
        Engine(store: store, apps: AppCatalog(configuration.apps), settings: configuration.engine, clock: SystemClock(), rules: RuleSetHolder(ruleSet))
    }

    /// The report as lines: per app its counts, the rules and actions by keys, and the flagged keys listed.
    static func text(_ report: KeySweepReport) -> String {
        var lines = ["sweep with rule set \(report.ruleSetVersion)\(report.dryRun ? " (dry run: no action queued)" : "")"]
        for app in report.apps {
            lines.append("\(app.appId): \(app.keys) keys, \(app.flagged) flagged, \(app.failed) not scored"
                + (app.error.map { "; stopped: \($0)" } ?? ""))
            if !app.rules.isEmpty {
                lines.append("  rules: " + app.rules.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
            }
            if !app.actions.isEmpty {
                lines.append("  actions\(report.dryRun ? " (would be asked)" : ""): "
                    + app.actions.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
            }
            for key in app.flaggedKeys {
                let actions = key.actions.isEmpty ? "" : " [\(key.actions.joined(separator: "; "))]"
                lines.append("  \(key.keyId) \(key.decision) \(String(format: "%.0f", key.score)) \(key.rules.joined(separator: ","))\(actions)")
            }
            if app.flagged > app.flaggedKeys.count { lines.append("  and \(app.flagged - app.flaggedKeys.count) more (--json lists the first \(KeySweep.flaggedListed))") }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
