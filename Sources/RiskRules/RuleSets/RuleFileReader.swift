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
    static let ruleKeys = ["id", "description", "when", "score", "decide", "reason", "enabled"]

    var thresholds: Located<DecisionThresholds>?
    var listPaths: [String: Located<String>] = [:]
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
            case "lists":
                for (name, located) in readNamedStrings(value, in: document, kind: "list", declared: listPaths.mapValues { ($0.document, $0.node) }) {
                    listPaths[name] = located
                }
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

    private mutating func readAttributes(_ node: Node, in document: YAMLDocument) {
        for (name, located) in readNamedStrings(node, in: document, kind: "attribute", declared: attributes.mapValues { ($0.document, $0.node) }) {
            guard let type = SignalType(rawValue: located.value) else {
                errors.append(document.error(.invalidField, at: located.node, "unknown type `\(PolicyFileLimits.excerpt(located.value))` for attribute \(name)",
                                             hint: "types: \(SignalType.allCases.map(\.rawValue).joined(separator: ", "))"))
                continue
            }
            attributes[name] = Located(value: type, document: located.document, node: located.node)
        }
    }

    /// A mapping of names to strings (list paths, attribute types), refusing names already `declared` (in an
    /// earlier file) or given twice.
    private mutating func readNamedStrings(
        _ node: Node, in document: YAMLDocument, kind: String, declared: [String: (YAMLDocument, Node)]
    ) -> [(String, Located<String>)] {
        guard case .mapping(let mapping) = node else {
            errors.append(document.error(.invalidField, at: node, "`\(kind)s` maps names to values, e.g. { name: value }"))
            return []
        }
        var declared = declared
        var found: [(String, Located<String>)] = []
        for (key, value) in mapping {
            if let name = key.scalar?.string, name.utf8.count > RuleSetLimits.nameBytes {
                errors.append(document.error(.tooLong, at: key, "a \(kind) name is at most \(RuleSetLimits.nameBytes) bytes, this one \(name.utf8.count)"))
                continue
            }
            guard let name = key.scalar?.string, Self.isName(name) else {
                errors.append(document.error(.invalidField, at: key, "a \(kind) name is letters, digits and _"))
                continue
            }
            guard let text = value.scalar?.string, !text.isEmpty else {
                errors.append(document.error(.invalidField, at: value, "the \(kind) \(name) needs a value"))
                continue
            }
            if let (earlierDocument, earlierNode) = declared[name] {
                errors.append(document.error(.duplicateSetting, at: key, "the \(kind) \(name) is declared twice (also at \(earlierDocument.path):\(earlierNode.mark?.line ?? 0))"))
                continue
            }
            declared[name] = (document, value)
            found.append((name, Located(value: text, document: document, node: value)))
        }
        return found
    }

    static func isName(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, first.properties.isAlphabetic || first == "_" else { return false }
        return text.unicodeScalars.allSatisfy { ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) || $0 == "_" }
    }
}
