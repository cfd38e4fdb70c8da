import ArgumentParser
import AttestGuardRuntime
import Foundation

/// `attestguard receipts baseline [--app ID] [--json]`: each configured app's latest risk-metric baseline, its
/// recent history and suggested thresholds (``BaselineReport``), read from the configured store. Exit 0 shown,
/// 2 usage or configuration (an app that is not configured), 3 the store is unusable.
struct BaselineCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "baseline",
        abstract: "Show each app's risk-metric baseline, its history and suggested thresholds."
    )

    @OptionGroup var options: ConfigurationOption

    @Option(name: .long, help: "Only this app, TEAMID.bundle.id.")
    var app: String?

    @Option(name: .long, help: "How many days of history to show, newest first (1-366).")
    var days: Int = 7

    @Flag(name: .long, help: "Print JSON: {\"apps\": [{appId, latest, history, suggested}]}.")
    var json = false

    func validate() throws {
        guard (1...366).contains(days) else { throw ValidationError("--days must be in 1...366") }
    }

    func run() async throws {
        let configuration = try await options.load()
        let configured = configuration.apps.map(\.appId).sorted()
        if let app, !configured.contains(app) { throw ValidationError("app \(app) is not configured") }
        let (appIds, days) = (app.map { [$0] } ?? configured, self.days)
        let reports = try await HistoryStoreSession.reading(command: "receipts baseline", configuration: configuration) { store in
            var reports: [BaselineReport] = []
            for appId in appIds {
                reports.append(BaselineReport(appId: appId, history: try await store.riskBaselineHistory(appId: appId, limit: days)))
            }
            return reports
        }
        if json {
            let data = try JSONSerialization.data(withJSONObject: ["apps": reports.map(\.json)], options: [.sortedKeys])
            print(String(decoding: data, as: UTF8.self))
        } else {
            print(reports.map(\.text).joined(separator: "\n"), terminator: "")
        }
    }
}
