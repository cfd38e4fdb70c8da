import ArgumentParser
import Foundation
import RiskRules

/// The rule set a `rules` subcommand reads, spelled the same on every one of them: `--rules DIR`. Without it the
/// command reads `Rules` in the working directory, as in a checkout or a rule repository, and outside one the
/// default rule set embedded in the binary (as `demo` does), saying so on standard error.
struct RuleDirectoryOption: ParsableArguments {
    /// The directory named when none is: a checkout's and a rule repository's.
    static let conventional = "Rules"

    @Option(name: .long, help: ArgumentHelp(
        "The rule directory: its *.yaml files, with lists and tests/ relative to it (default: Rules, or the embedded default rule set where there is no Rules directory).",
        valueName: "directory"
    ))
    var rules: String?

    /// Refuses the directory named twice, as `--rules` and as the older positional argument.
    func validate(positional: String?) throws {
        if positional != nil, rules != nil { throw ValidationError("name the rule directory once, with --rules DIR") }
    }

    /// The directory to read. `positional` is the older spelling of `lint` and `test` (the directory as an
    /// argument): it still works, with a deprecation note on standard error.
    func resolve(command: String, positional: String? = nil) throws -> RuleDirectory {
        if let positional {
            RuleDirectory.note("attestguard rules \(command): the rule directory as an argument is deprecated; write --rules \(positional)")
            return RuleDirectory(path: positional)
        }
        if let rules { return RuleDirectory(path: rules) }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: Self.conventional, isDirectory: &isDirectory), isDirectory.boolValue {
            return RuleDirectory(path: Self.conventional)
        }
        RuleDirectory.note("attestguard rules \(command): no \(Self.conventional) directory here; reading the embedded default rule set (name one with --rules DIR)")
        return try RuleDirectory.embeddedDefault()
    }
}

/// A rule directory a command reads: one on disk, or the embedded default set written to a temporary folder for
/// the command's run (``remove()`` deletes it; a directory on disk is left alone).
struct RuleDirectory {
    /// The folder to load from.
    let path: String
    /// How output names the set: its path, or `embedded default rule set`.
    let name: String
    private let isTemporary: Bool

    init(path: String) {
        self.path = path
        name = path
        isTemporary = false
    }

    private init(temporary folder: URL) {
        path = folder.path
        name = "embedded default rule set"
        isTemporary = true
    }

    static func embeddedDefault() throws -> RuleDirectory {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("attestguard-rules-\(UUID().uuidString.prefix(8))")
        return RuleDirectory(temporary: try DefaultRuleSet.write(to: folder))
    }

    /// Loads the set; problems go to standard error and end the command with exit code 1.
    func load() throws -> RuleSet {
        try RuleSetArgument.load(path)
    }

    func remove() {
        if isTemporary { try? FileManager.default.removeItem(atPath: path) }
    }

    static func note(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
