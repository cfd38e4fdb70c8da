import AttestGuardStore

/// Which of the scoring facts a batch statement's text reads, so that a batch none of whose queries asks for the
/// facts that change about daily runs a statement without their parts (``ScoringFactsSQL/readsDailyFacts``).
///
/// Those facts are held in the process (`ScoringFactsCache` in the engine): most batches ask for none of them, and
/// PostgreSQL initialises every part of a statement's plan at every execution, asked or not. Each shape is its own
/// prepared statement, so each keeps its own plan.
protocol ScoringFactsShape: Sendable {
    /// Whether the statement reads the receipt, the risk-metric baseline, the superseded keys and DeviceCheck.
    static var readsDailyFacts: Bool { get }
}

/// Every part of the scoring facts.
enum AllScoringFacts: ScoringFactsShape {
    static let readsDailyFacts = true
}

/// Only what must be exact at every verdict: the key's row (counter and status), velocity sums, distinct counts and
/// labels.
enum ExactScoringFacts: ScoringFactsShape {
    static let readsDailyFacts = false
}

extension ScoringFactsQuery {
    /// Whether the query asks for a fact of those that change about daily (``ScoringFactsShape``).
    var asksForDailyFacts: Bool {
        receipt || metricBaselineAt != nil || supersededKeys || deviceCheck != nil || deviceCheckValidationUserId != nil
    }
}

/// A batch statement's prepared name and texts for each ``ScoringFactsShape``, made once: a generic statement type holds
/// no stored statics, and postgres-nio reads a statement's name and text at every execution.
struct ShapedStatementTexts: Sendable {
    /// One shape's name, its text prepared once, and its text sent unnamed (``UnnamedStatementText``).
    struct Texts: Sendable {
        var name: String
        var sql: String
        var unnamedSQL: String
    }

    private let all: Texts
    private let exact: Texts

    /// `text(shape, keepingPlan)` makes a shape's text, prepared once (`keepingPlan`) or sent unnamed.
    init(name: String, exactName: String, text: (any ScoringFactsShape.Type, Bool) -> String) {
        all = Texts(name: name, sql: text(AllScoringFacts.self, true), unnamedSQL: text(AllScoringFacts.self, false))
        exact = Texts(name: exactName, sql: text(ExactScoringFacts.self, true), unnamedSQL: text(ExactScoringFacts.self, false))
    }

    func of(_ shape: any ScoringFactsShape.Type) -> Texts { shape.readsDailyFacts ? all : exact }
}
