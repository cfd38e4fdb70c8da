import ArgumentParser
import Foundation
import RiskRules

extension RuleSetLoadFailure {
    /// Writes every problem and their count to standard error, and returns the exit (1) that ends the command; `what`
    /// names what did not load (`the rule set`, `the policy`).
    func reported(_ what: String) -> ExitCode {
        FileHandle.standardError.write(Data((description + "\n\(errors.count) problem(s); \(what) does not load\n").utf8))
        return ExitCode(1)
    }
}
