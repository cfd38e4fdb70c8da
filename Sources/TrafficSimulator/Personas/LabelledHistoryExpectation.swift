/// What the demo's labelled history must find: the precision and recall of each rule of the shipped set, and of the
/// set's `deny` and `deny` or `review`, over the checked requests labelled by persona (``CaseLabels``). Written from
/// ``PersonaExpectations``, never from a run.
public struct LabelledHistoryExpectation: Sendable, Hashable {
    /// A precision and a recall (nil: nothing to measure, as for a rule that fired on no labelled decision).
    public struct Figure: Sendable, Hashable, CustomStringConvertible {
        public var precision: Double?
        public var recall: Double?

        public init(precision: Double?, recall: Double?) {
            self.precision = precision
            self.recall = recall
        }

        /// Equal to `other` to three decimals, as the table prints them.
        public func matches(_ other: Figure) -> Bool {
            Self.rounded(precision) == Self.rounded(other.precision) && Self.rounded(recall) == Self.rounded(other.recall)
        }

        public var description: String { "\(Self.text(precision)) / \(Self.text(recall))" }

        /// A share as the table prints it: three decimals, or `-` when there is nothing to measure.
        public static func text(_ share: Double?) -> String {
            guard let share else { return "-" }
            let thousandths = Int((share * 1_000).rounded())
            let fraction = String(thousandths % 1_000)
            return "\(thousandths / 1_000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)"
        }

        private static func rounded(_ share: Double?) -> Int? { share.map { Int(($0 * 1_000).rounded()) } }
    }

    /// The labelled decisions of each kind.
    public var fraud: Int
    /// Per rule that fires on a labelled decision; every other rule fires on none.
    public var rules: [String: Figure]
    public var deny: Figure
    public var denyOrReview: Figure

    public init(fraud: Int, rules: [String: Figure], deny: Figure, denyOrReview: Figure) {
        self.fraud = fraud
        self.rules = rules
        self.deny = deny
        self.denyOrReview = denyOrReview
    }
}
