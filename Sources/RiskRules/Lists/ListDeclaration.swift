public import AttestVocabulary

/// A list a rule set declares under `lists:`, and where its entries come from.
public struct ListDeclaration: Sendable, Hashable {
    /// Where a list's entries come from.
    public enum Source: Sendable, Hashable {
        /// A file of one entry per line, relative to the rule directory, read with the rule set.
        case file(String)
        /// The store: changed at run time (`/v1/lists`, `attestguard lists`), read by every process within its
        /// list refresh period, without a reload of the rules.
        case managed
    }

    public var source: Source
    public var kind: ListKind

    /// The fields a mapping declaration may have.
    static let fields = ["file", "managed", "kind"]

    /// Whether `name` may name a list: letters, digits and `_`, starting with a letter or `_`, at most 64 bytes
    /// (what `list("name")` in a rule and a run-time list's name share).
    public static func isValidName(_ name: String) -> Bool {
        name.utf8.count <= RuleSetLimits.nameBytes && RuleFileReader.isName(name)
    }
}
