import Foundation
import Testing

/// The README stays a front page a reader gets through in minutes: at most 15 KB in all, and each second-level section
/// within its own budget. Depth belongs in the guides under `docs/`, which the README's Documentation table maps; a
/// section that needs more room moves there, and a new section needs a budget here first.
struct ReadmeBudgetTests {
    /// The whole README's limit in bytes.
    static let totalBudget = 15_360

    /// Each section's limit in bytes, by its `## ` heading (the title and the text before the first section count as
    /// the "" section).
    static let sectionBudgets: [String: Int] = [
        "": 2_000,
        "What it does": 2_000,
        "Quick start": 4_500,
        "In front of your API in five minutes": 2_000,
        "Documentation": 1_800,
        "License and security": 500,
    ]

    /// The README's sections: each `## ` heading's text (or "" for what precedes the first) and the section's size in
    /// bytes, heading line included. Headings inside fenced code blocks are code, not sections.
    static func sections(of markdown: String) -> [(heading: String, bytes: Int)] {
        var sections: [(heading: String, bytes: Int)] = [("", 0)]
        var inFence = false
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") { inFence.toggle() }
            if !inFence, line.hasPrefix("## ") { sections.append((String(line.dropFirst(3)), 0)) }
            sections[sections.count - 1].bytes += line.utf8.count + 1
        }
        return sections
    }

    /// What is wrong with a README of this text, one line each: over the total, a section without a budget, a
    /// section over its budget.
    static func problems(in markdown: String) -> [String] {
        var problems: [String] = []
        let total = markdown.utf8.count
        if total > totalBudget { problems.append("README.md is \(total) bytes, over \(totalBudget)") }
        for section in sections(of: markdown) {
            guard let budget = sectionBudgets[section.heading] else {
                problems.append("section \"\(section.heading)\" has no budget in ReadmeBudgetTests.sectionBudgets")
                continue
            }
            if section.bytes > budget {
                problems.append("section \"\(section.heading)\" is \(section.bytes) bytes, over its \(budget)")
            }
        }
        return problems
    }

    @Test func readmeKeepsItsBudgets() throws {
        let problems = Self.problems(in: try RepositoryFiles.text("README.md"))
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n")): move the detail to a guide under docs/")
    }

    @Test func budgetsSumToAtMostTheTotal() {
        #expect(Self.sectionBudgets.values.reduce(0, +) <= Self.totalBudget)
    }

    @Test func overgrownAndUnknownSectionsAreFound() {
        let fits = "# T\n\nintro\n\n## Quick start\n\n```\n## not a heading\n```\n"
        #expect(Self.problems(in: fits).isEmpty)
        #expect(Self.sections(of: fits).map(\.heading) == ["", "Quick start"])
        let grown = "# T\n\n## Quick start\n\n" + String(repeating: "x", count: 4_600) + "\n"
        let grownSize = "## Quick start\n\n".utf8.count + 4_600 + 2
        #expect(Self.problems(in: grown) == ["section \"Quick start\" is \(grownSize) bytes, over its 4500"])
        let unknown = "# T\n\n## History\n\nold figures\n"
        #expect(Self.problems(in: unknown) == ["section \"History\" has no budget in ReadmeBudgetTests.sectionBudgets"])
        let long = String(repeating: "y", count: 15_361)
        #expect(Self.problems(in: long).first == "README.md is 15361 bytes, over 15360")
    }
}
