public import PolicyFiles
import Foundation
import Yams

/// Signal values written by hand (rule test cases, `rules explain --signals`): a YAML or JSON mapping of signal
/// names to values. Numbers and booleans as such; strings as strings; durations as `90s`/`24h`/`7d` or a number of
/// seconds; timestamps in ISO 8601 (`2026-01-01T12:00:00Z`); `null` for an explicitly missing value. Every name
/// must be a signal of the schema (velocity and the rule set's attributes included), so a typo is an error, not
/// a silently missing value.
public enum SignalInput {
    /// The values of a signals file (YAML or JSON) for `ruleSet`, at `now` (seconds since 1970).
    public static func load(path: String, text: String, for ruleSet: RuleSet, now: Double) throws(RuleSetLoadFailure) -> SignalValues {
        let document: YAMLDocument
        do throws(RuleSetError) {
            document = try YAMLDocument(path: path, text: text)
        } catch {
            throw RuleSetLoadFailure(errors: [error])
        }
        guard let root = document.root else {
            throw RuleSetLoadFailure(errors: [RuleSetError(.invalidTestCase, file: path, line: 0, column: 0, "the signals file is empty")])
        }
        switch values(root, in: document, attributes: ruleSet.attributes) {
        case .success(let parsed):
            let values = ruleSet.values(now: now)
            for (name, value) in parsed { values.set(name, value ?? nil) }
            return values
        case .failure(let problems):
            throw RuleSetLoadFailure(errors: problems.errors)
        }
    }

    static func values(
        _ node: Node,
        in document: YAMLDocument,
        attributes: [String: SignalType]
    ) -> Result<[String: SignalValue?], RuleProblems> {
        guard case .mapping(let mapping) = node else {
            return .failure(RuleProblems([document.error(.invalidTestCase, at: node, "signals are a mapping of signal names to values")]))
        }
        var values: [String: SignalValue?] = [:]
        var problems: [RuleSetError] = []
        for (key, valueNode) in mapping {
            let name = key.scalar?.string ?? ""
            let definition: SignalDefinition
            switch SignalSchema.definition(of: name, attributes: attributes) {
            case .success(let found): definition = found
            case .failure(let failure):
                problems.append(document.error(.unknownSignal, at: key, failure.message, hint: failure.hint))
                continue
            }
            if valueNode.null != nil, valueNode.scalar?.style == .plain {
                values[name] = .some(nil)
                continue
            }
            guard let value = value(valueNode, type: definition.type) else {
                problems.append(document.error(.invalidTestCase, at: valueNode, "\(name) is \(definition.type.article); `\(valueNode.scalar?.string ?? "?")` is not",
                                               hint: hint(for: definition.type)))
                continue
            }
            values[name] = value
        }
        return problems.isEmpty ? .success(values) : .failure(RuleProblems(problems))
    }

    static func value(_ node: Node, type: SignalType) -> SignalValue? {
        guard let scalar = node.scalar else { return nil }
        switch type {
        case .number: return node.float.flatMap { $0.isFinite ? .number($0) : nil }
        case .bool: return node.bool.map(SignalValue.bool)
        case .string: return .string(scalar.string)
        case .duration:
            if let seconds = node.float, seconds.isFinite { return .duration(seconds) }
            return duration(scalar.string).map(SignalValue.duration)
        case .timestamp: return timestamp(scalar.string).map(SignalValue.timestamp)
        }
    }

    /// `90s`, `1.5h`, `7d`, `2w` in seconds.
    public static func duration(_ text: String) -> Double? {
        guard let tokens = try? Lexer.tokens(of: text), tokens.count == 2, case .duration(let seconds) = tokens[0].kind else { return nil }
        return seconds
    }

    /// An ISO 8601 instant in seconds since 1970.
    public static func timestamp(_ text: String) -> Double? {
        (try? Date(text, strategy: .iso8601))?.timeIntervalSince1970
    }

    private static func hint(for type: SignalType) -> String? {
        switch type {
        case .duration: "write a duration such as 90s, 30m, 24h or 7d"
        case .timestamp: "write an ISO 8601 instant such as 2026-01-01T12:00:00Z"
        case .bool: "write true or false"
        case .number: "write a number"
        case .string: nil
        }
    }
}
