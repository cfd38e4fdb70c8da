import ArgumentParser
@testable import AttestGuardCLI
import Testing

/// Every `--help` page reads as argument-parser wraps it: no text carries a hard line break inside a paragraph,
/// which the help would re-wrap into a ragged line (a short line followed by a word that would have fitted on it).
@Suite("help texts")
struct HelpTextTests {
    static let columns = 80

    /// The root command and every subcommand under it.
    static func commands(under root: any ParsableCommand.Type = AttestGuardCommand.self) -> [any ParsableCommand.Type] {
        [root] + root.configuration.subcommands.flatMap { commands(under: $0) }
    }

    /// The column a line's text starts at: after an option or subcommand label and its gap of two or more spaces,
    /// or after the indentation.
    static func textColumn(_ line: Substring) -> Int {
        if let match = line.firstMatch(of: /^( +\S(?:\S| \S)*)( {2,})\S/) { return match.1.count + match.2.count }
        return line.prefix { $0 == " " }.count
    }

    /// The lines of `help` that end a paragraph early: the next line continues the same paragraph, and its first
    /// word would have fitted on this one.
    static func raggedLines(in help: String) -> [String] {
        let lines = help.split(separator: "\n", omittingEmptySubsequences: false)
        var ragged: [String] = []
        for (line, next) in zip(lines, lines.dropFirst()) {
            guard !line.isEmpty, !next.isEmpty, !line.hasPrefix("USAGE:") else { continue }
            let indentation = next.prefix { $0 == " " }.count
            let continuation = next.dropFirst(indentation)
            // A list item and an option (at the options' indentation) start a new paragraph.
            guard indentation == textColumn(line), !continuation.hasPrefix("- "), !(indentation == 2 && continuation.hasPrefix("-")) else { continue }
            let word = continuation.prefix { $0 != " " }
            // argument-parser keeps a line shorter than the width, so a word fits when the line stays under it.
            if line.count + 1 + word.count < columns { ragged.append("\(line)⏎\n\(next)") }
        }
        return ragged
    }

    @Test("no help page has a ragged line: every discussion and help text is re-wrapped as written")
    func noRaggedLines() {
        let commands = Self.commands()
        #expect(commands.count > 30, "the whole command tree is walked")
        for command in commands {
            let help = AttestGuardCommand.helpMessage(for: command, columns: Self.columns)
            let ragged = Self.raggedLines(in: help)
            #expect(ragged.isEmpty, "attestguard \(command._commandName) --help has ragged lines:\n\(ragged.joined(separator: "\n"))")
        }
    }

    @Test("the check finds a hard line break inside a paragraph and passes a re-wrapped one")
    func detectorCatchesAHardBreak() {
        let hardBreak = """
            OVERVIEW: Run the demo.

            Nothing to configure and nothing else to start: the server
            listens on 127.0.0.1 in simulator mode.
            """
        #expect(Self.raggedLines(in: hardBreak).count == 1)
        let wrapped = """
            OVERVIEW: Run the demo.

            Nothing to configure and nothing else to start: the server listens on one
            127.0.0.1 port in simulator mode.
              --rules <directory>     The rule directory: its *.yaml files, with lists and
                                      tests/ relative to it.
              --format <format>       What standard output carries.
            """
        #expect(Self.raggedLines(in: wrapped).isEmpty)
        let raggedOption = """
              --rules <directory>     The rule directory:
                                      its *.yaml files.
            """
        #expect(Self.raggedLines(in: raggedOption).count == 1)
    }
}
