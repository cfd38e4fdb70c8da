import PolicyFiles
import Yams
import AttestVocabulary

/// Compiles one rule mapping (`id`, `when`, `score`, `decide` and/or `then`, optional `reason`, `description`,
/// `enabled`).
enum RuleCompiler {
    /// The rule, its problems, or `nil` for a rule with `enabled: false` (checked all the same).
    static func compile(_ node: Node, in document: YAMLDocument, with compiler: inout ExpressionCompiler) -> Result<Rule, RuleProblems>? {
        var problems: [RuleSetError] = []
        guard case .mapping(let mapping) = node else {
            return .failure(RuleProblems([document.error(.invalidField, at: node, "a rule is a mapping starting with `id:`")]))
        }
        for (key, _) in mapping where !RuleFileReader.ruleKeys.contains(key.scalar?.string ?? "") {
            let name = key.scalar?.string ?? "?"
            problems.append(document.error(.unknownField, at: key, "unknown rule key `\(PolicyFileLimits.excerpt(name))`",
                                           hint: SignalSchema.nearest(name, in: RuleFileReader.ruleKeys).map { "did you mean `\($0)`?" }
                                               ?? "keys: \(RuleFileReader.ruleKeys.joined(separator: ", "))"))
        }
        let id = mapping["id"]?.scalar?.string ?? ""
        if mapping["id"] == nil {
            problems.append(document.error(.missingField, at: node, "the rule has no `id`"))
        } else if id.utf8.count > RuleSetLimits.nameBytes {
            problems.append(document.error(.tooLong, at: mapping["id"], "rule id `\(PolicyFileLimits.excerpt(id))` is longer than \(RuleSetLimits.nameBytes) bytes"))
        } else if !isRuleId(id) {
            problems.append(document.error(.invalidField, at: mapping["id"], "rule id `\(id)` is not letters, digits, - and _ (at most \(RuleSetLimits.nameBytes) bytes)"))
        }
        // Messages below name the rule by its id only when the id is valid.
        let name = isRuleId(id) ? id : "at this place"
        var score = 0.0
        if let scoreNode = mapping["score"] {
            if let value = scoreNode.float, value.isFinite {
                score = value
            } else {
                problems.append(document.error(.invalidField, at: scoreNode, "`score` is a number such as +20 or -10"))
            }
        }
        var decide: Decision?
        if let decideNode = mapping["decide"] {
            decide = decideNode.scalar.flatMap { Decision(rawValue: $0.string) }
            if decide == nil {
                problems.append(document.error(.invalidField, at: decideNode, "`decide` is allow, review or deny"))
            }
        }
        if mapping["score"] == nil, mapping["decide"] == nil, mapping["then"] == nil {
            problems.append(document.error(.missingField, at: node, "rule \(name) has no `score`, `decide` or `then`", hint: "add `score: +N` or `decide: review`"))
        }
        var enabled = true
        if let enabledNode = mapping["enabled"] {
            if let flag = enabledNode.bool { enabled = flag } else {
                problems.append(document.error(.invalidField, at: enabledNode, "`enabled` is true or false"))
            }
        }
        let summary = mapping["description"]?.scalar?.string
        if let summary, summary.utf8.count > RuleSetLimits.textBytes {
            problems.append(document.error(.tooLong, at: mapping["description"], "`description` is longer than \(RuleSetLimits.textBytes) bytes"))
        }
        let condition = text(mapping["when"], field: "when", rule: name, in: document, node: node, problems: &problems)
        var evaluate: CompiledExpression.Evaluate<Bool>?
        if let (text, whenNode) = condition {
            do throws(ExpressionError) {
                evaluate = try compiler.condition(try Parser.parse(text))
            } catch {
                problems.append(document.error(error, in: whenNode, expression: text))
            }
        }
        var reason: ReasonTemplate?
        if let reasonNode = mapping["reason"] {
            if let text = reasonNode.scalar?.string, text.utf8.count <= RuleSetLimits.textBytes {
                do throws(ExpressionError) {
                    reason = try ReasonTemplate.compile(text, with: &compiler)
                } catch {
                    problems.append(document.error(error, in: reasonNode, expression: text))
                }
            } else {
                problems.append(document.error(reasonNode.scalar == nil ? .invalidField : .tooLong, at: reasonNode,
                                               "`reason` is a text of at most \(RuleSetLimits.textBytes) bytes"))
            }
        } else {
            reason = ReasonTemplate(parts: [.text(summary ?? id)])
        }
        let actions = mapping["then"].map { RuleActionCompiler.compile($0, in: document, with: &compiler, problems: &problems) } ?? []
        guard problems.isEmpty, let evaluate, let reason, let (conditionText, _) = condition else {
            return .failure(RuleProblems(problems))
        }
        guard enabled else { return nil }
        return .success(Rule(
            id: id, summary: summary, score: score, decide: decide, condition: conditionText,
            file: document.path, line: node.mark?.line ?? 0, evaluate: evaluate, reason: reason, actions: actions
        ))
    }

    private static func text(_ node: Node?, field: String, rule id: String, in document: YAMLDocument, node parent: Node, problems: inout [RuleSetError]) -> (String, Node)? {
        guard let node else {
            problems.append(document.error(.missingField, at: parent, "rule \(id) has no `\(field)`"))
            return nil
        }
        guard let text = node.scalar?.string, !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            problems.append(document.error(.invalidField, at: node, "`\(field)` is an expression written as text", hint: "quote it if it starts with [ or {"))
            return nil
        }
        guard text.utf8.count <= RuleSetLimits.textBytes else {
            problems.append(document.error(.tooLong, at: node, "`\(field)` is longer than \(RuleSetLimits.textBytes) bytes"))
            return nil
        }
        return (text, node)
    }

    static func isRuleId(_ id: String) -> Bool {
        guard !id.isEmpty, id.utf8.count <= RuleSetLimits.nameBytes, let first = id.utf8.first, first != UInt8(ascii: "-") else { return false }
        return id.utf8.allSatisfy { byte in
            (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
        }
    }
}

/// The problems of one rule.
struct RuleProblems: Error {
    var errors: [RuleSetError]
    init(_ errors: [RuleSetError]) { self.errors = errors }
}
