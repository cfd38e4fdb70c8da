import ArgumentParser
import Foundation
import RiskRules

/// `attestguard rules explain --rules DIR --signals FILE`: evaluates the rule set on hand-written signals and
/// shows every rule's outcome, the missing signals, the score and the decision.
struct ExplainRules: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "explain", abstract: "Evaluate a rule set on signals from a file and explain the verdict.")

    @Option(name: .long, help: "The rule directory.")
    var rules: String = "Rules"

    @Option(name: .long, help: "A YAML or JSON mapping of signal names to values.")
    var signals: String

    @Option(name: .long, help: "The instant age() measures from, ISO 8601 (default: now).")
    var now: String?

    @Flag(name: .long, help: "Print the evaluation as JSON.")
    var json = false

    func run() throws {
        let ruleSet = try RuleSetArgument.load(rules)
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
