public import PolicyFiles
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

        var lists: [String: Set<String>] = [:]
        var hashed: [(String, String)] = documents.map { (PolicyFileVersion.nameInDirectory($0.path), $0.text) }
        for (name, located) in reader.listPaths.sorted(by: { $0.key < $1.key }) {
            guard located.value.utf8.count <= PolicyFileLimits.pathBytes else {
                errors.append(located.document.error(.tooLong, at: located.node,
                                                     "the path of list \(name) is \(located.value.utf8.count) bytes, more than \(PolicyFileLimits.pathBytes)"))
                lists[name] = []
                continue
            }
            do {
                let text = try readList(located.value)
                lists[name] = ListFile.items(text)
                hashed.append(("list:\(name):\(located.value)", text))
            } catch let problem as PolicyFileAccess.Problem {
                lists[name] = []  // so that rules naming the list report no second problem
                errors.append(located.document.error(problem.code, at: located.node, "list \(name) at \(PolicyFileLimits.excerpt(located.value)): \(problem.message)",
                                                     hint: "a list path is relative to the rule directory and stays inside it"))
            } catch {
                lists[name] = []
                errors.append(located.document.error(.unreadableFile, at: located.node, "cannot read the list file \(PolicyFileLimits.excerpt(located.value))",
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
            directory: directory
        )
    }
}

/// A list file: one item per line; blank lines and lines starting with `#` are skipped; items are trimmed.
enum ListFile {
    static func items(_ text: String) -> Set<String> {
        Set(text.split(whereSeparator: \.isNewline).compactMap { line in
            let item = line.trimmingCharacters(in: .whitespaces)
            return item.isEmpty || item.hasPrefix("#") ? nil : item
        })
    }
}
