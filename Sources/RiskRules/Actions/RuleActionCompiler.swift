import AttestVocabulary
import PolicyFiles
import Yams

/// Compiles a rule's `then:`, one action or a list of them, each written as the rule language writes a call:
/// - `set_devicecheck_bit1`: sets DeviceCheck bit 1 for the request's key, device and user;
/// - `revoke_key`: revokes the request's App Attest key;
/// - `add_to_list("blocked_ips", request.ip, 24h)`: adds a value (any string expression) to a run-time list
///   declared with `managed: true`, for a duration from a minute to ten years;
/// - `label(fraud, "rule-farm")`, `label(fraud, "rule-farm", device)`: labels the request's key (or its `user` or
///   `device`) as `fraud` or `legitimate`, under a source of at most 128 bytes.
///
/// Every argument is checked with the rule: a list the rules do not declare as run-time, a value that is not a
/// string, a label other than fraud or legitimate is a problem of the rule file, never of a verdict.
enum RuleActionCompiler {
    /// The most actions one rule may list.
    static let maximumActions = 8
    /// The shortest time an `add_to_list` entry may stay, in seconds: a shorter one would be gone before every
    /// process had read it.
    static let minimumLifetimeSeconds = 60.0

    static func compile(_ node: Node, in document: YAMLDocument, with compiler: inout ExpressionCompiler, problems: inout [RuleSetError]) -> [RuleActionTemplate] {
        let items: [Node]
        switch node {
        case .scalar: items = [node]
        case .sequence(let sequence): items = Array(sequence)
        default:
            problems.append(document.error(.invalidField, at: node, "`then` is an action or a list of actions",
                                           hint: "then: [revoke_key, 'label(fraud, \"rule-farm\")']"))
            return []
        }
        guard !items.isEmpty else {
            problems.append(document.error(.invalidField, at: node, "`then` lists no action", hint: "remove it, or name an action: \(actionList)"))
            return []
        }
        guard items.count <= maximumActions else {
            problems.append(document.error(.tooLong, at: node, "`then` lists \(items.count) actions; a rule takes at most \(maximumActions)"))
            return []
        }
        var templates: [RuleActionTemplate] = []
        for item in items {
            guard let text = item.scalar?.string, !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
                problems.append(document.error(.invalidField, at: item, "an action is written as text, such as revoke_key",
                                               hint: "quote a call that starts with [ or {"))
                continue
            }
            guard text.utf8.count <= RuleSetLimits.textBytes else {
                problems.append(document.error(.tooLong, at: item, "an action is longer than \(RuleSetLimits.textBytes) bytes"))
                continue
            }
            do throws(ExpressionError) {
                let template = try action(try Parser.parse(text), text: text, with: &compiler)
                if templates.contains(where: { $0.text == template.text }) {
                    problems.append(document.error(.invalidField, at: item, "the action `\(text)` is listed twice"))
                } else {
                    templates.append(template)
                }
            } catch {
                problems.append(document.error(error, in: item, expression: text))
            }
        }
        return templates
    }

    private static var actionList: String { RuleActionName.allCases.map(\.rawValue).joined(separator: ", ") }

    static func action(_ node: Expression.Node, text: String, with compiler: inout ExpressionCompiler) throws(ExpressionError) -> RuleActionTemplate {
        let name: String
        let arguments: [Expression.Node]
        switch node.expression {
        case .signal(let bare): (name, arguments) = (bare, [])
        case .call(let called, let given): (name, arguments) = (called, given)
        default:
            throw ExpressionError(.syntax, "an action is a name, such as revoke_key, or a call, such as label(fraud, \"chargebacks\")", at: node.range)
        }
        guard let action = RuleActionName(rawValue: name) else {
            let hint = SignalSchema.nearest(name, in: RuleActionName.allCases.map(\.rawValue)).map { "did you mean \($0)?" } ?? "actions: \(actionList)"
            throw ExpressionError(.unknownFunction, "no action named `\(name)`", at: node.range, hint: hint)
        }
        switch action {
        case .setDeviceCheckBit1:
            guard arguments.isEmpty else {
                throw ExpressionError(.wrongArguments, "set_devicecheck_bit1 takes no arguments: it flags the request's key, device and user", at: node.range)
            }
            return RuleActionTemplate(text: text, name: action) { _ in RuleAction(.setDeviceCheckBit1) }
        case .revokeKey:
            guard arguments.isEmpty else {
                throw ExpressionError(.wrongArguments, "revoke_key takes no arguments: it revokes the request's key", at: node.range)
            }
            return RuleActionTemplate(text: text, name: action) { _ in RuleAction(.revokeKey) }
        case .addToList:
            return try addToList(arguments, text: text, range: node.range, with: &compiler)
        case .label:
            return try label(arguments, text: text, range: node.range)
        }
    }

    private static func addToList(
        _ arguments: [Expression.Node], text: String, range: Range<Int>, with compiler: inout ExpressionCompiler
    ) throws(ExpressionError) -> RuleActionTemplate {
        guard arguments.count == 3 else {
            throw ExpressionError(.wrongArguments, "add_to_list takes the list, the value and how long it stays", at: range,
                                  hint: "add_to_list(\"blocked_ips\", request.ip, 24h)")
        }
        guard case .string(let list) = arguments[0].expression else {
            throw ExpressionError(.wrongArguments, "add_to_list takes the list's name as a string literal", at: arguments[0].range)
        }
        guard let source = compiler.lists[list] else {
            let hint = SignalSchema.nearest(list, in: compiler.lists.keys.sorted()).map { "did you mean \"\($0)\"?" }
                ?? "declare it under `lists:` as `{ managed: true, kind: cidr }`"
            throw ExpressionError(.unknownList, "no list named \"\(list)\"", at: arguments[0].range, hint: hint)
        }
        guard case .managed = source else {
            throw ExpressionError(.wrongArguments, "list \"\(list)\" is a file: actions add only to run-time lists", at: arguments[0].range,
                                  hint: "declare it as `{ managed: true }` to change it at run time")
        }
        let value = try compiler.compile(arguments[1])
        guard !value.isList, case .text(let evaluate) = value.form else {
            throw ExpressionError(.typeMismatch, "the value added is a string, such as request.ip, but this is \(value.typeDescription)",
                                  at: arguments[1].range)
        }
        let maximum = Double(ManagedListEntryLimits.maximumLifetimeSeconds)
        guard case .duration(let lifetime) = arguments[2].expression, (minimumLifetimeSeconds...maximum).contains(lifetime) else {
            throw ExpressionError(.wrongArguments, "how long the entry stays is a duration from 1m to \(RuleValueFormat.duration(maximum)), such as 24h",
                                  at: arguments[2].range)
        }
        return RuleActionTemplate(text: text, name: .addToList) { values in
            evaluate(values).map { RuleAction(.addToList(list: list, value: $0, lifetimeSeconds: lifetime)) }
        }
    }

    private static func label(_ arguments: [Expression.Node], text: String, range: Range<Int>) throws(ExpressionError) -> RuleActionTemplate {
        guard (2...3).contains(arguments.count) else {
            throw ExpressionError(.wrongArguments, "label takes the label, its source and optionally the subject (key, user or device)", at: range,
                                  hint: "label(fraud, \"rule-farm\") or label(fraud, \"rule-farm\", device)")
        }
        guard let label = word(arguments[0]).flatMap(FraudLabel.init(rawValue:)) else {
            throw ExpressionError(.wrongArguments, "the label is fraud or legitimate", at: arguments[0].range)
        }
        guard case .string(let source) = arguments[1].expression, !source.isEmpty, source.utf8.count <= FraudLabel.maximumSourceBytes,
            !source.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else {
            throw ExpressionError(.wrongArguments, "the source is a string literal of 1-\(FraudLabel.maximumSourceBytes) printable bytes, such as \"rule-farm\"",
                                  at: arguments[1].range)
        }
        var subject = LabelSubjectKind.key
        if arguments.count == 3 {
            guard let named = word(arguments[2]).flatMap(LabelSubjectKind.init(rawValue:)), named != .decision else {
                throw ExpressionError(.wrongArguments, "the subject is key, user or device", at: arguments[2].range)
            }
            subject = named
        }
        let action = RuleAction(.label(label, source: source, subject: subject))
        return RuleActionTemplate(text: text, name: .label) { _ in action }
    }

    /// A bare word (`fraud`, parsed as a signal name) or a string literal.
    private static func word(_ node: Expression.Node) -> String? {
        switch node.expression {
        case .signal(let name): name
        case .string(let text): text
        default: nil
        }
    }
}
