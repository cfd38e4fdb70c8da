public import AttestVocabulary

/// One signal rules can read: its dotted name, its type and what it means (including when it is missing).
public struct SignalDefinition: Sendable, Hashable {
    /// Where the value comes from, for grouping in the documentation.
    public enum Source: String, Sendable, Hashable, CaseIterable {
        case key, receipt, app, devicecheck, label, velocity, distinct, request, attributes, rollout
    }

    public var name: String
    public var type: SignalType
    public var source: Source
    public var summary: String

    public init(_ name: String, _ type: SignalType, _ source: Source, _ summary: String) {
        self.name = name
        self.type = type
        self.source = source
        self.summary = summary
    }

    /// The definition of a fixed signal.
    public init(_ signal: FixedSignal, _ type: SignalType, _ source: Source, _ summary: String) {
        self.init(signal.rawValue, type, source, summary)
    }
}
