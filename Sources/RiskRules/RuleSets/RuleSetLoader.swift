public import PolicyFiles
import AttestVocabulary
import Crypto
import Foundation
import Yams

/// Loads a rule set from a directory: every `*.yaml` / `*.yml` file directly in it is a rule file (subdirectories
/// such as `tests/` and `lists/` are not); list files are read relative to the directory and must stay inside it.
/// Only regular files are read (``PolicyFileAccess``), so a FIFO or a device in the directory never blocks a load.
/// Every problem in every file is reported at once, each at its file, line and column; any problem means no rule
/// set.
public enum RuleSetLoader {
    public static func load(directory: String) throws(RuleSetLoadFailure) -> RuleSet {
        let documents = try PolicyFileAccess.yamlFiles(in: directory, kind: "rule")
        let access = PolicyFileAccess(directory: directory)
        return try compile(documents: documents, directory: directory) { relative in try access.readList(relative) }
    }

    /// Compiles rule files given as text; `readList` reads a list file by the path written in `lists:` (a path
    /// longer than ``RuleSetLimits/pathBytes`` is refused before it is called).
    public static func compile(
        documents: [(path: String, text: String)],
        directory: String = "",
        readList: (String) throws -> String
    ) throws(RuleSetLoadFailure) -> RuleSet {
        var errors: [RuleSetError] = []
        var parsed: [YAMLDocument] = []
        for (path, text) in documents {
            do throws(RuleSetError) {
                parsed.append(try YAMLDocument(path: path, text: text))
            } catch {
                errors.append(error)
            }
        }
        var reader = RuleFileReader()
        parsed.forEach { reader.read($0) }
        errors += reader.errors

        var lists: [String: ExpressionCompiler.ListSource] = [:]
        var hashed: [(String, String)] = documents.map { (PolicyFileVersion.nameInDirectory($0.path), $0.text) }
        for (name, located) in reader.lists.sorted(by: { $0.key < $1.key }) {
            let kind = located.value.kind
            guard case .file(let path) = located.value.source else {
                lists[name] = .managed(kind)
                // A managed list's declaration, not its entries, is part of the set's version.
                hashed.append(("list:\(name):managed:\(kind)", ""))
                continue
            }
            // Until it reads, the list is empty, so that rules naming it report no second problem.
            lists[name] = .file(ListContents(kind: kind, entries: []))
            guard path.utf8.count <= PolicyFileLimits.pathBytes else {
                errors.append(located.document.error(.tooLong, at: located.node,
                                                     "the path of list \(name) is \(path.utf8.count) bytes, more than \(PolicyFileLimits.pathBytes)"))
                continue
            }
            do {
                let text = try readList(path)
                switch ListFile.entries(text, kind: kind) {
                case .success(let entries):
                    lists[name] = .file(ListContents(kind: kind, entries: entries.map { ListContents.Entry(value: $0) }))
                case .failure(let problem):
                    errors.append(located.document.error(.invalidField, at: located.node,
                                                         "list \(name) at \(PolicyFileLimits.excerpt(path)), line \(problem.line): \(problem.refusal.message)"))
                }
                hashed.append(("list:\(name):\(path)", kind == .string ? text : "\(kind)\n\(text)"))
            } catch let problem as PolicyFileAccess.Problem {
                errors.append(located.document.error(problem.code, at: located.node, "list \(name) at \(PolicyFileLimits.excerpt(path)): \(problem.message)",
                                                     hint: "a list path is relative to the rule directory and stays inside it"))
            } catch {
                errors.append(located.document.error(.unreadableFile, at: located.node, "cannot read the list file \(PolicyFileLimits.excerpt(path))",
                                                     hint: "paths are relative to the rule directory"))
            }
        }
        let attributes = reader.attributes.mapValues(\.value)
        var compiler = ExpressionCompiler(layout: SignalLayout(), attributes: attributes, lists: lists)
        var rules: [Rule] = []
        var seen: [String: (String, Int)] = [:]
        for (document, node) in reader.ruleNodes {
            switch RuleCompiler.compile(node, in: document, with: &compiler) {
            case .success(let rule):
                if let (file, line) = seen[rule.id] {
                    errors.append(document.error(.duplicateRule, at: node, "rule id \(rule.id) is used twice (also at \(file):\(line))"))
                } else {
                    seen[rule.id] = (rule.file, rule.line)
                    rules.append(rule)
                }
            case .failure(let problems):
                errors += problems.errors
            case .none:
                break
            }
        }
        guard errors.isEmpty else { throw RuleSetLoadFailure(errors: errors) }
        var layout = compiler.layout
        let readsKey = layout.names.contains {
            ($0.hasPrefix("key.") && !SignalSchema.keySignalsFromRequest.contains($0)) || $0.hasPrefix("receipt.")
        }
        layout.keepLogged(SignalSchema.loggedWithEveryDecision(readsKey: readsKey))
        return RuleSet(
            version: PolicyFileVersion.of(hashed),
            thresholds: reader.thresholds?.value ?? .standard,
            rules: rules,
            layout: layout,
            attributes: attributes,
            managedLists: lists.compactMapValues { if case .managed(let kind) = $0 { kind } else { nil } },
            directory: directory
        )
    }
}

/// A list file: one entry per line; blank lines and lines starting with `#` are skipped; entries take their stored
/// form (``ListEntryText``), so a `cidr` file may write `203.0.113.7/24` and a bad line is named by its number.
enum ListFile {
    struct Problem: Error {
        var line: Int
        var refusal: ListEntryText.Refusal
    }

    static func entries(_ text: String, kind: ListKind) -> Result<[String], Problem> {
        var entries: [String] = []
        for (index, line) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let item = line.trimmingWhitespace
            if item.isEmpty || item.hasPrefix("#") { continue }
            switch ListEntryText.normalise(item, kind: kind) {
            case .success(let entry): entries.append(entry)
            case .failure(let refusal): return .failure(Problem(line: index + 1, refusal: refusal))
            }
        }
        return .success(entries)
    }
}
