public import PolicyFiles
import Foundation
import Yams
public import AttestVocabulary

/// Rule test cases: `tests/*.yaml` beside the rule files. Each file has an optional `now` (ISO 8601, default
/// 2026-01-01T00:00:00Z, the instant `age()` measures from) and `cases`, each with a `name`, `signals` (see
/// ``SignalInput``), optionally `lists` (the entries of run-time lists the rules declare `managed: true`, which are
/// otherwise empty: `{ blocked_ips: [203.0.113.0/24] }`) and `expect`: the `decision`, and optionally the exact set
/// of rules `fired`, the `score` and the exact set of `actions` the fired rules ask for, each as it reads with its
/// values (`revoke_key`, `'add_to_list("blocked_ips", "203.0.113.9", 1d)'`, `'label(fraud, "rule-farm", key)'`).
public enum RuleTestCases {
    /// What a case's `expect` asks for.
    public struct Expectation: Sendable, Hashable {
        public var decision: Decision
        /// The exact set of rules that fire, sorted; `nil` when the case leaves it open.
        public var fired: [String]?
        /// `nil` when the case leaves it open.
        public var score: Double?
        /// The exact set of actions, as ``RuleAction/description`` writes them, sorted; `nil` when the case leaves
        /// it open.
        public var actions: [String]?
    }

    /// One case's outcome.
    public struct Result: Sendable {
        public var file: String
        public var line: Int
        public var name: String
        public var expected: Expectation
        /// What differed from `expect`; empty when the case passed.
        public var failures: [String]
        public var evaluation: RuleEvaluation

        public var passed: Bool { failures.isEmpty }
    }

    /// All cases of a directory's `tests/`.
    public struct Report: Sendable {
        public var results: [Result]
        /// Problems in the case files themselves.
        public var errors: [RuleSetError]

        public var passed: Bool { errors.isEmpty && results.allSatisfy(\.passed) }

        /// An empty report, or one to add to, for ``run(_:file:text:into:)``.
        public init(results: [Result] = [], errors: [RuleSetError] = []) {
            self.results = results
            self.errors = errors
        }
    }

    static let defaultNow = 1_767_225_600.0  // 2026-01-01T00:00:00Z

    /// Runs every case file in `directory/tests` against `ruleSet`.
    public static func run(_ ruleSet: RuleSet, directory: String) -> Report {
        let testDirectory = (directory as NSString).appendingPathComponent("tests")
        let files = ((try? FileManager.default.contentsOfDirectory(atPath: testDirectory)) ?? [])
            .filter { $0.hasSuffix(".yaml") || $0.hasSuffix(".yml") }
            .sorted()
        var report = Report(results: [], errors: [])
        for file in files {
            let path = (testDirectory as NSString).appendingPathComponent(file)
            let text: String
            do throws(PolicyFileAccess.Problem) {
                text = try PolicyFileAccess.readRegularFile(atPath: path)
            } catch {
                report.errors.append(RuleSetError(error.code, file: path, line: 0, column: 0, "case file: \(error.message)"))
                continue
            }
            run(ruleSet, file: path, text: text, into: &report)
        }
        return report
    }

    /// Runs the cases of one file's text.
    public static func run(_ ruleSet: RuleSet, file: String, text: String, into report: inout Report) {
        let document: YAMLDocument
        do throws(RuleSetError) {
            document = try YAMLDocument(path: file, text: text)
        } catch {
            report.errors.append(error)
            return
        }
        guard case .mapping(let root)? = document.root, case .sequence(let cases)? = root["cases"] else {
            report.errors.append(document.error(.invalidTestCase, at: document.root, "a case file is a mapping with `cases:`, a list of cases"))
            return
        }
        var now = defaultNow
        if let nowNode = root["now"] {
            guard let instant = nowNode.scalar.flatMap({ SignalInput.timestamp($0.string) }) else {
                report.errors.append(document.error(.invalidTestCase, at: nowNode, "`now` is an ISO 8601 instant such as 2026-01-01T00:00:00Z"))
                return
            }
            now = instant
        }
        for node in cases {
            switch runCase(node, in: document, ruleSet: ruleSet, now: now) {
            case .success(let result): report.results.append(result)
            case .failure(let problems): report.errors += problems.errors
            }
        }
    }

    private static func runCase(_ node: Node, in document: YAMLDocument, ruleSet: RuleSet, now: Double) -> Swift.Result<Result, RuleProblems> {
        guard case .mapping(let mapping) = node, let name = mapping["name"]?.scalar?.string,
            let signalsNode = mapping["signals"], case .mapping(let expect)? = mapping["expect"]
        else {
            return .failure(RuleProblems([document.error(.invalidTestCase, at: node, "a case has `name`, `signals` and `expect`")]))
        }
        let caseKeys = ["name", "signals", "lists", "expect"]
        for (key, _) in mapping where !caseKeys.contains(key.scalar?.string ?? "") {
            return .failure(RuleProblems([document.error(.invalidTestCase, at: key, "unknown case field `\(PolicyFileLimits.excerpt(key.scalar?.string ?? "?"))`",
                                                         hint: "fields: \(caseKeys.joined(separator: ", "))")]))
        }
        let expectKeys = ["decision", "fired", "score", "actions"]
        for (key, _) in expect where !expectKeys.contains(key.scalar?.string ?? "") {
            return .failure(RuleProblems([document.error(.invalidTestCase, at: key, "unknown expectation `\(PolicyFileLimits.excerpt(key.scalar?.string ?? "?"))`",
                                                         hint: "expect: \(expectKeys.joined(separator: ", "))")]))
        }
        let signals: [String: SignalValue?]
        switch SignalInput.values(signalsNode, in: document, attributes: ruleSet.attributes) {
        case .success(let values): signals = values
        case .failure(let problems): return .failure(problems)
        }
        var lists = ManagedListSnapshot.empty
        if let listsNode = mapping["lists"] {
            switch managedLists(listsNode, in: document, ruleSet: ruleSet) {
            case .success(let snapshot): lists = snapshot
            case .failure(let problems): return .failure(problems)
            }
        }
        let values = ruleSet.values(now: now, lists: lists)
        for (signal, value) in signals { values.set(signal, value ?? nil) }
        let evaluation = ruleSet.evaluate(values)
        var failures: [String] = []
        guard let decisionText = expect["decision"]?.scalar?.string, let decision = Decision(rawValue: decisionText) else {
            return .failure(RuleProblems([document.error(.invalidTestCase, at: expect["decision"] ?? node, "`expect.decision` is allow, review or deny")]))
        }
        if evaluation.decision != decision {
            failures.append("decision \(evaluation.decision.rawValue), expected \(decision.rawValue)")
        }
        var expectation = Expectation(decision: decision)
        if let firedNode = expect["fired"] {
            guard case .sequence(let list) = firedNode else {
                return .failure(RuleProblems([document.error(.invalidTestCase, at: firedNode, "`expect.fired` is a list of rule ids")]))
            }
            let expected = Set(list.compactMap { $0.scalar?.string })
            let unknown = expected.subtracting(ruleSet.rules.map(\.id))
            if !unknown.isEmpty {
                return .failure(RuleProblems([document.error(.invalidTestCase, at: firedNode, "no rule has the id \(unknown.sorted().joined(separator: ", "))")]))
            }
            expectation.fired = expected.sorted()
            let actual = Set(evaluation.fired.map(\.id))
            if actual != expected {
                failures.append("fired [\(actual.sorted().joined(separator: ", "))], expected [\(expected.sorted().joined(separator: ", "))]")
            }
        }
        if let scoreNode = expect["score"] {
            // Finite: `abs(.nan - score) > 1e-9` is false, so a NaN expectation would pass every case.
            guard let score = scoreNode.float, score.isFinite else {
                return .failure(RuleProblems([document.error(.invalidTestCase, at: scoreNode, "`expect.score` is a number")]))
            }
            expectation.score = score
            if abs(score - evaluation.score) > 1e-9 {
                failures.append("score \(RuleValueFormat.number(evaluation.score)), expected \(RuleValueFormat.number(score))")
            }
        }
        if let actionsNode = expect["actions"] {
            guard case .sequence(let list) = actionsNode, list.allSatisfy({ $0.scalar != nil }) else {
                return .failure(RuleProblems([document.error(.invalidTestCase, at: actionsNode, "`expect.actions` is a list of actions as they read with their values",
                                                             hint: "actions: [revoke_key, 'label(fraud, \"rule-farm\", key)']")]))
            }
            let expected = Set(list.compactMap { $0.scalar?.string })
            expectation.actions = expected.sorted()
            let actual = Set(evaluation.actions.map(\.action.description))
            if actual != expected {
                failures.append("actions [\(actual.sorted().joined(separator: ", "))], expected [\(expected.sorted().joined(separator: ", "))]")
            }
        }
        return .success(Result(
            file: document.path, line: node.mark?.line ?? 0, name: name, expected: expectation, failures: failures, evaluation: evaluation
        ))
    }

    /// A case's `lists`: each a run-time list the rule set declares, with its entries (in any form the list's kind
    /// takes, stored as the list would store them).
    private static func managedLists(_ node: Node, in document: YAMLDocument, ruleSet: RuleSet) -> Swift.Result<ManagedListSnapshot, RuleProblems> {
        guard case .mapping(let mapping) = node else {
            return .failure(RuleProblems([document.error(.invalidTestCase, at: node, "`lists` maps run-time list names to their entries")]))
        }
        var lists: [String: ListContents] = [:]
        for (key, value) in mapping {
            let name = key.scalar?.string ?? ""
            guard let kind = ruleSet.managedLists[name] else {
                let declared = ruleSet.managedLists.keys.sorted()
                return .failure(RuleProblems([document.error(
                    .invalidTestCase, at: key, "the rules declare no run-time list \(PolicyFileLimits.excerpt(name))",
                    hint: declared.isEmpty ? "declare one under `lists:` with `{ managed: true }`" : "run-time lists: \(declared.joined(separator: ", "))")]))
            }
            guard case .sequence(let items) = value else {
                return .failure(RuleProblems([document.error(.invalidTestCase, at: value, "the entries of \(name) are a list, such as [203.0.113.0/24]")]))
            }
            var entries: [ListContents.Entry] = []
            for item in items {
                switch ListEntryText.normalise(item.scalar?.string ?? "", kind: kind) {
                case .success(let entry): entries.append(ListContents.Entry(value: entry))
                case .failure(let refusal):
                    return .failure(RuleProblems([document.error(.invalidTestCase, at: item, "an entry of \(name): \(refusal.message)")]))
                }
            }
            lists[name] = ListContents(kind: kind, entries: entries)
        }
        return .success(ManagedListSnapshot(lists: lists))
    }
}
