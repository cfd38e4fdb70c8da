import PolicyFiles
import AttestVocabulary
import Yams

/// Reads one rule file's top level: `version`, `decisions`, `lists`, `attributes` and the raw `rules`. Settings
/// may stand in any file of the set but only once across them; rules are compiled later, once every file's
/// settings are known.
struct RuleFileReader {
    /// A setting and the file and node it came from (for "given twice" errors).
    struct Located<Value> {
        var value: Value
        var document: YAMLDocument
        var node: Node
    }

    static let topLevelKeys = ["version", "decisions", "lists", "attributes", "rules"]
    static let ruleKeys = ["id", "description", "when", "score", "decide", "then", "reason", "enabled"]

    var thresholds: Located<DecisionThresholds>?
    var lists: [String: Located<ListDeclaration>] = [:]
    var attributes: [String: Located<SignalType>] = [:]
    /// Every rule mapping, with its document.
    var ruleNodes: [(document: YAMLDocument, node: Node)] = []
    var errors: [RuleSetError] = []

    mutating func read(_ document: YAMLDocument) {
        guard let root = document.root else { return }
        guard case .mapping(let mapping) = root else {
            errors.append(document.error(.invalidField, at: root, "a rule file is a mapping of version, decisions, lists, attributes and rules"))
            return
        }
        for (key, value) in mapping {
            switch key.scalar?.string {
            case "version":
                if value.int != 1 {
                    errors.append(document.error(.invalidField, at: value, "unsupported rule file version \(PolicyFileLimits.excerpt(value.scalar?.string ?? "?"))", hint: "write `version: 1`"))
                }
            case "decisions": readThresholds(value, in: document)
            case "lists": readLists(value, in: document)
            case "attributes": readAttributes(value, in: document)
            case "rules":
                guard case .sequence(let sequence) = value else {
                    errors.append(document.error(.invalidField, at: value, "`rules` is a list of rules, each starting with `- id:`"))
                    continue
                }
                ruleNodes += sequence.map { (document, $0) }
            default:
                let name = key.scalar?.string ?? "?"
                errors.append(document.error(.unknownField, at: key, "unknown top-level key `\(PolicyFileLimits.excerpt(name))`",
                                             hint: SignalSchema.nearest(name, in: Self.topLevelKeys).map { "did you mean `\($0)`?" }
                                                 ?? "keys: \(Self.topLevelKeys.joined(separator: ", "))"))
            }
        }
    }

    private mutating func readThresholds(_ node: Node, in document: YAMLDocument) {
        if let earlier = thresholds {
            errors.append(document.error(.duplicateSetting, at: node, "`decisions` is set twice (also at \(earlier.document.path):\(earlier.node.mark?.line ?? 0))"))
            return
        }
        guard case .mapping(let mapping) = node else {
            errors.append(document.error(.invalidField, at: node, "`decisions` maps review and deny to score thresholds, e.g. { review: 50, deny: 80 }"))
            return
        }
        var review: Double?
        var deny: Double?
        for (key, value) in mapping {
            guard let number = value.float, number.isFinite else {
                errors.append(document.error(.invalidField, at: value, "a threshold is a number"))
                continue
            }
            switch key.scalar.flatMap({ Decision(rawValue: $0.string) }) {
            case .review: review = number
            case .deny: deny = number
            default: errors.append(document.error(.unknownField, at: key, "unknown threshold `\(PolicyFileLimits.excerpt(key.scalar?.string ?? "?"))`", hint: "thresholds: review, deny"))
            }
        }
        guard let review, let deny else {
            errors.append(document.error(.missingField, at: node, "`decisions` needs both review and deny"))
            return
        }
        guard review <= deny else {
            errors.append(document.error(.invalidField, at: node, "the review threshold (\(RuleValueFormat.number(review))) is above the deny threshold (\(RuleValueFormat.number(deny)))"))
            return
        }
        thresholds = Located(value: DecisionThresholds(review: review, deny: deny), document: document, node: node)
    }

    /// `lists:` maps each name to a file path (a `string` list), to `{ file: path, kind: cidr }`, or to
    /// `{ managed: true, kind: string|cidr }` for a run-time list kept in the store.
    private mutating func readLists(_ node: Node, in document: YAMLDocument) {
        let declared = lists.mapValues { ($0.document, $0.node) }
        for (name, value) in readNamedValues(node, in: document, kind: "list", declared: declared, mappingsToo: true) {
            if let path = value.scalar?.string {
                lists[name] = Located(value: ListDeclaration(source: .file(path), kind: .string), document: document, node: value)
                continue
            }
            guard case .mapping(let fields) = value else { continue }
            var file: String?
            var managed = false
            var kind = ListKind.string
            var valid = true
            for (key, field) in fields {
                switch key.scalar?.string {
                case "file":
                    guard let path = field.scalar?.string, !path.isEmpty else {
                        errors.append(document.error(.invalidField, at: field, "`file` is the list file's path, relative to the rule directory"))
                        valid = false
                        continue
                    }
                    file = path
                case "managed":
                    guard let flag = field.bool else {
                        errors.append(document.error(.invalidField, at: field, "`managed` is true or false"))
                        valid = false
                        continue
                    }
                    managed = flag
                case "kind":
                    guard let parsed = field.scalar.flatMap({ ListKind(rawValue: $0.string) }) else {
                        errors.append(document.error(.invalidField, at: field, "unknown list kind `\(PolicyFileLimits.excerpt(field.scalar?.string ?? "?"))`",
                                                     hint: "kinds: \(ListKind.allCases.map(\.rawValue).joined(separator: ", "))"))
                        valid = false
                        continue
                    }
                    kind = parsed
                default:
                    let key = key.scalar?.string ?? "?"
                    errors.append(document.error(.unknownField, at: field, "unknown list field `\(PolicyFileLimits.excerpt(key))`",
                                                 hint: SignalSchema.nearest(key, in: ListDeclaration.fields).map { "did you mean `\($0)`?" }
                                                     ?? "fields: \(ListDeclaration.fields.joined(separator: ", "))"))
                    valid = false
                }
            }
            guard valid else { continue }
            switch (file, managed) {
            case (let path?, false):
                lists[name] = Located(value: ListDeclaration(source: .file(path), kind: kind), document: document, node: value)
            case (nil, true):
                lists[name] = Located(value: ListDeclaration(source: .managed, kind: kind), document: document, node: value)
            case (_?, true):
                errors.append(document.error(.invalidField, at: value, "the list \(name) is either a file or managed, not both",
                                             hint: "a managed list's entries are kept in the store: `attestguard lists` and /v1/lists change them"))
            case (nil, false):
                errors.append(document.error(.missingField, at: value, "the list \(name) needs `file: path` or `managed: true`"))
            }
        }
    }

    private mutating func readAttributes(_ node: Node, in document: YAMLDocument) {
        for (name, value) in readNamedValues(node, in: document, kind: "attribute", declared: attributes.mapValues { ($0.document, $0.node) }) {
            let text = value.scalar?.string ?? ""
            guard let type = SignalType(rawValue: text) else {
                errors.append(document.error(.invalidField, at: value, "unknown type `\(PolicyFileLimits.excerpt(text))` for attribute \(name)",
                                             hint: "types: \(SignalType.allCases.map(\.rawValue).joined(separator: ", "))"))
                continue
            }
            attributes[name] = Located(value: type, document: document, node: value)
        }
    }

    /// A mapping of names to non-empty strings (list paths, attribute types) or, with `mappingsToo`, to mappings,
    /// refusing names already `declared` (in an earlier file) or given twice.
    private mutating func readNamedValues(
        _ node: Node, in document: YAMLDocument, kind: String, declared: [String: (YAMLDocument, Node)], mappingsToo: Bool = false
    ) -> [(String, Node)] {
        guard case .mapping(let mapping) = node else {
            errors.append(document.error(.invalidField, at: node, "`\(kind)s` maps names to values, e.g. { name: value }"))
            return []
        }
        var declared = declared
        var found: [(String, Node)] = []
        for (key, value) in mapping {
            if let name = key.scalar?.string, name.utf8.count > RuleSetLimits.nameBytes {
                errors.append(document.error(.tooLong, at: key, "a \(kind) name is at most \(RuleSetLimits.nameBytes) bytes, this one \(name.utf8.count)"))
                continue
            }
            guard let name = key.scalar?.string, Self.isName(name) else {
                errors.append(document.error(.invalidField, at: key, "a \(kind) name is letters, digits and _"))
                continue
            }
            let isMapping = if case .mapping = value { true } else { false }
            guard (mappingsToo && isMapping) || !(value.scalar?.string ?? "").isEmpty else {
                errors.append(document.error(.invalidField, at: value, "the \(kind) \(name) needs a value"))
                continue
            }
            if let (earlierDocument, earlierNode) = declared[name] {
                errors.append(document.error(.duplicateSetting, at: key, "the \(kind) \(name) is declared twice (also at \(earlierDocument.path):\(earlierNode.mark?.line ?? 0))"))
                continue
            }
            declared[name] = (document, value)
            found.append((name, value))
        }
        return found
    }

    static func isName(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, first.properties.isAlphabetic || first == "_" else { return false }
        return text.unicodeScalars.allSatisfy { ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) || $0 == "_" }
    }
}
