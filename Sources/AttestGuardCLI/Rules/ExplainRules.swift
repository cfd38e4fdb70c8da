import ArgumentParser
import AttestGuardRuntime
import AttestGuardStore
import Foundation
import RiskRules

/// `attestguard rules explain --rules DIR --signals FILE`: evaluates the rule set on hand-written signals and
/// shows every rule's outcome, the missing signals, the score and the decision. With `--request-id ID --app APP`
/// (and `--config`) it evaluates a logged decision's snapshot instead, at the instant it was decided, and shows the
/// decision's fraud label when it has one (``LoggedDecisionExplanation``).
struct ExplainRules: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "explain", abstract: "Evaluate a rule set on signals from a file or a logged decision and explain the verdict.")

    @OptionGroup var ruleDirectory: RuleDirectoryOption

    @Option(name: .long, help: "A YAML or JSON mapping of signal names to values.")
    var signals: String?

    @Option(name: .long, help: "A logged decision's request id (X-Request-Id): explain its snapshot and show its label (needs --app).")
    var requestId: String?

    @Option(name: .long, help: "The app of --request-id.")
    var app: String?

    @OptionGroup var options: ConfigurationOption

    @Option(name: .long, help: "The instant age() measures from, ISO 8601 (default: now).")
    var now: String?

    @Flag(name: .long, help: "Print the evaluation as JSON.")
    var json = false

    func validate() throws {
        guard (signals == nil) != (requestId == nil) else { throw ValidationError("name either --signals or --request-id") }
        if requestId != nil, app == nil { throw ValidationError("--request-id needs --app") }
    }

    func run() async throws {
        let rules = try ruleDirectory.resolve(command: "explain")
        defer { rules.remove() }
        let ruleSet = try rules.load()
        if let requestId, let app {
            let configuration = try await options.load()
            print(try await LoggedDecisionExplanation.explain(requestId: requestId, app: app, ruleSet: ruleSet, configuration: configuration, json: json))
            return
        }
        guard let signals else { throw ValidationError("name either --signals or --request-id") }
        let instant: Double
        if let now {
            guard let parsed = SignalInput.timestamp(now) else { throw ValidationError("--now is not an ISO 8601 instant: \(now)") }
            instant = parsed
        } else {
            instant = Date().timeIntervalSince1970
        }
        guard let text = try? String(contentsOfFile: signals, encoding: .utf8) else {
            throw ValidationError("cannot read the signals file \(signals)")
        }
        let values: SignalValues
        do {
            values = try SignalInput.load(path: signals, text: text, for: ruleSet, now: instant)
        } catch {
            FileHandle.standardError.write(Data((error.description + "\n").utf8))
            throw ExitCode(1)
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try encoder.encode(ruleSet.evaluate(values)), as: UTF8.self))
        } else {
            print(RuleExplanation.text(ruleSet, values: values))
        }
    }
}
