public import AttestVocabulary
/// The values of one evaluation, in the slots a compiled rule set assigned to the signals it reads: numbers,
/// durations and timestamps (seconds since 1970) as `Double`, strings, booleans. `nil` is a missing value.
/// One instance per evaluation; filled by the engine (or from a logged snapshot) through ``set(_:_:)``.
///
/// The slots are raw buffers rather than arrays: compiled rules read them millions of times a second, and a class's
/// array properties would pay an exclusivity check and a bounds check on every read. Slot indices come from the
/// layout, so they are in bounds by construction. Not for concurrent use: one evaluation, one instance.
public final class SignalValues: @unchecked Sendable {
    /// The layout of the rule set the values are for.
    public let layout: SignalLayout
    /// The instant `age()` measures from, in seconds since 1970.
    public let now: Double
    /// The run-time lists as they stood when the evaluation began.
    public let lists: ManagedListSnapshot
    let numbers: UnsafeMutablePointer<Double?>
    let strings: UnsafeMutablePointer<String?>
    let bools: UnsafeMutablePointer<Bool?>

    public init(layout: SignalLayout, now: Double, lists: ManagedListSnapshot = .empty) {
        self.layout = layout
        self.now = now
        self.lists = lists
        numbers = .allocate(capacity: max(layout.numberCount, 1))
        numbers.initialize(repeating: nil, count: max(layout.numberCount, 1))
        strings = .allocate(capacity: max(layout.stringCount, 1))
        strings.initialize(repeating: nil, count: max(layout.stringCount, 1))
        bools = .allocate(capacity: max(layout.boolCount, 1))
        bools.initialize(repeating: nil, count: max(layout.boolCount, 1))
    }

    deinit {
        numbers.deinitialize(count: max(layout.numberCount, 1))
        numbers.deallocate()
        strings.deinitialize(count: max(layout.stringCount, 1))
        strings.deallocate()
        bools.deinitialize(count: max(layout.boolCount, 1))
        bools.deallocate()
    }

    /// Sets a signal the rule set reads; a name it does not read is ignored (returns false), and so is a value of
    /// the wrong type.
    @discardableResult
    public func set(_ name: String, _ value: SignalValue?) -> Bool {
        set(layout.slots[name], value)
    }

    /// Sets the signal of a slot of ``layout`` (see ``set(_:_:)-(String,_)``): the engine resolves the slots of the
    /// signals it fills by name once per rule set, not once per verdict. `nil` (a signal the rule set does not read)
    /// is ignored.
    @discardableResult
    public func set(_ slot: SignalLayout.Slot?, _ value: SignalValue?) -> Bool {
        guard let slot else { return false }
        precondition(slot.index < layout.capacity(of: slot.type), "a slot out of bounds for this layout")
        switch (slot.type, value) {
        case (_, nil):
            clear(slot)
        case (.number, .number(let number)?), (.duration, .duration(let number)?), (.timestamp, .timestamp(let number)?):
            numbers[slot.index] = number
        case (.string, .string(let text)?):
            strings[slot.index] = text
        case (.bool, .bool(let flag)?):
            bools[slot.index] = flag
        default:
            return false
        }
        return true
    }

    /// Sets a fixed signal the rule set reads (see ``set(_:_:)-(String,_)``).
    @discardableResult
    public func set(_ signal: FixedSignal, _ value: SignalValue?) -> Bool {
        set(layout.slot(of: signal), value)
    }

    /// Sets a velocity or attribute signal the rule set reads (see ``set(_:_:)-(String,_)``).
    @discardableResult
    public func set(_ name: SignalName, _ value: SignalValue?) -> Bool {
        set(name.rawValue, value)
    }

    /// The value of a signal the rule set reads, `nil` when missing or not read.
    public func value(of name: String) -> SignalValue? {
        guard let slot = layout.slots[name] else { return nil }
        return value(in: slot)
    }

    /// Every slotted signal with its value (`nil` when missing), sorted by name (``SignalLayout/names``).
    public var namedValues: [(name: String, value: SignalValue?)] {
        zip(layout.names, layout.orderedSlots).map { (name: $0, value: value(in: $1)) }
    }

    private func value(in slot: SignalLayout.Slot) -> SignalValue? {
        switch slot.type {
        case .number: return numbers[slot.index].map(SignalValue.number)
        case .duration: return numbers[slot.index].map(SignalValue.duration)
        case .timestamp: return numbers[slot.index].map(SignalValue.timestamp)
        case .string: return strings[slot.index].map(SignalValue.string)
        case .bool: return bools[slot.index].map(SignalValue.bool)
        }
    }

    private func clear(_ slot: SignalLayout.Slot) {
        switch slot.type {
        case .number, .duration, .timestamp: numbers[slot.index] = nil
        case .string: strings[slot.index] = nil
        case .bool: bools[slot.index] = nil
        }
    }
}

/// A signal's value with its type.
public enum SignalValue: Sendable, Hashable {
    case number(Double)
    /// Seconds.
    case duration(Double)
    /// Seconds since 1970.
    case timestamp(Double)
    case string(String)
    case bool(Bool)

    public var type: SignalType {
        switch self {
        case .number: .number
        case .duration: .duration
        case .timestamp: .timestamp
        case .string: .string
        case .bool: .bool
        }
    }

    /// The value as it reads in a reason.
    public var display: String {
        switch self {
        case .number(let value): RuleValueFormat.number(value)
        case .duration(let seconds): RuleValueFormat.duration(seconds)
        case .timestamp(let seconds): RuleValueFormat.timestamp(seconds)
        case .string(let text): text
        case .bool(let flag): String(flag)
        }
    }
}
