/// How one persona fared: what it was expected to get, what its checked requests got, and whether they agree.
public struct PersonaResult: Sendable {
    public let persona: Persona
    public let expected: ExpectedOutcome
    /// The outcomes of the persona's checked requests, in order (a failed setup step is one `unexpected`).
    public let outcomes: [ObservedOutcome]

    public init(persona: Persona, expected: ExpectedOutcome, outcomes: [ObservedOutcome]) {
        self.persona = persona
        self.expected = expected
        self.outcomes = outcomes
    }

    /// Every checked request got the expected outcome (and there was at least one).
    public var matched: Bool { !outcomes.isEmpty && outcomes.allSatisfy(expected.isMet) }

    /// The actual outcome in one line: each distinct outcome with its count, the unexpected ones first.
    public var actual: String {
        guard !outcomes.isEmpty else { return "nothing checked" }
        var counts: [(outcome: ObservedOutcome, count: Int)] = []
        for outcome in outcomes {
            if let index = counts.firstIndex(where: { $0.outcome == outcome }) { counts[index].count += 1 } else { counts.append((outcome, 1)) }
        }
        let ordered = counts.filter { !expected.isMet(by: $0.outcome) } + counts.filter { expected.isMet(by: $0.outcome) }
        return ordered.map { $0.count == 1 ? $0.outcome.description : "\($0.outcome.description) x\($0.count)" }.joined(separator: "; ")
    }

    /// The rules that fired most often on the checked requests (or the error codes), at most three.
    public var topReasons: [String] {
        var counts: [String: Int] = [:]
        for outcome in outcomes {
            switch outcome {
            case .verdict(let verdict): for rule in verdict.ruleIds { counts[rule, default: 0] += 1 }
            case .error(_, let code): counts[code, default: 0] += 1
            case .unexpected: break
            }
        }
        return counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.prefix(3).map(\.key)
    }
}
