import ArgumentParser
import RiskRules

/// `attestguard rules signals`: the signal schema as a Markdown table (the table in `docs/reference/signals.md` is this output).
struct ListSignals: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "signals", abstract: "List every signal rules can read, with its type.")

    func run() {
        print(SignalSchema.markdownTable())
    }
}
