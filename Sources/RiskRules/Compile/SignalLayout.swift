public import AttestVocabulary
import Synchronization

/// The signals one rule set reads, each with its definition and a slot in ``SignalValues``. Built while the rule
/// set compiles, so the engine assembles only what the rules use and the decision log stores only that.
public struct SignalLayout: Sendable {
    /// Which layout this is, unique in the process and renewed whenever a slot is added, so that two layouts with
    /// one identity have the same slots: a slot is an index into one layout's values, and what keeps slots (the
    /// engine's assembly plans) is keyed by it, not by the rule set's version, which names the files and not the
    /// order they were compiled in.
    public private(set) var identity = Self.newIdentity()
    private static let identities = Atomic<Int>(0)
    private static func newIdentity() -> Int { identities.wrappingAdd(1, ordering: .relaxed).oldValue }

    public struct Slot: Sendable, Hashable {
        public var type: SignalType
        /// Index within the storage of its type (numbers, durations and timestamps share one).
        var index: Int
    }

    public private(set) var slots: [String: Slot] = [:]
    public private(set) var definitions: [String: SignalDefinition] = [:]
    private(set) var numberCount = 0
    private(set) var stringCount = 0
    private(set) var boolCount = 0

    /// The names with a slot, sorted: those the rules read and those every decision logs (``loggedOnly``).
    public private(set) var names: [String] = []
    /// The slot of each of ``names``, in the same order: every verdict lists its signals, and reading them by slot
    /// spares a name lookup (a string hash) per signal.
    public private(set) var orderedSlots: [Slot] = []
    /// The slot of each fixed signal the layout has, by ``FixedSignal/ordinal``: the engine fills the fixed signals
    /// of every verdict, and this spares a name lookup (a string hash) per signal.
    private var fixedSlots = [Slot?](repeating: nil, count: FixedSignal.allCases.count)
    /// The names slotted only so that every decision logs them (``SignalSchema/loggedWithEveryDecision(readsKey:)``).
    public private(set) var loggedOnly: Set<String> = []

    /// The names the rules read, sorted.
    public var namesRead: [String] { loggedOnly.isEmpty ? names : names.filter { !loggedOnly.contains($0) } }

    public init() {}

    /// How many slots the values of `type` have: a slot of this layout is below it.
    func capacity(of type: SignalType) -> Int {
        switch type {
        case .number, .duration, .timestamp: numberCount
        case .string: stringCount
        case .bool: boolCount
        }
    }

    /// The slot of `signal`, `nil` when the rule set neither reads nor logs it.
    public func slot(of signal: FixedSignal) -> Slot? { fixedSlots[signal.ordinal] }

    /// Slots `definitions` that no rule reads, so that every decision logs them.
    mutating func keepLogged(_ definitions: [SignalDefinition]) {
        for definition in definitions where slots[definition.name] == nil {
            _ = slot(for: definition)
            loggedOnly.insert(definition.name)
        }
    }

    /// The slot of a signal, assigning one on first use.
    mutating func slot(for definition: SignalDefinition) -> Slot {
        if let slot = slots[definition.name] { return slot }
        let slot: Slot
        switch definition.type {
        case .number, .duration, .timestamp:
            slot = Slot(type: definition.type, index: numberCount)
            numberCount += 1
        case .string:
            slot = Slot(type: definition.type, index: stringCount)
            stringCount += 1
        case .bool:
            slot = Slot(type: definition.type, index: boolCount)
            boolCount += 1
        }
        slots[definition.name] = slot
        identity = Self.newIdentity()
        if let fixed = FixedSignal(rawValue: definition.name) { fixedSlots[fixed.ordinal] = slot }
        definitions[definition.name] = definition
        let position = names.firstIndex { $0 > definition.name } ?? names.endIndex
        names.insert(definition.name, at: position)
        orderedSlots.insert(slot, at: position)
        return slot
    }
}
