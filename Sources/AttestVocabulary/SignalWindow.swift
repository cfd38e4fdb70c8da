/// The window of a velocity signal (the `<window>` of `velocity.<event>.<per>.<window>`): a whole number of
/// minutes, hours, days or weeks, written `15m`, `24h`, `7d`, `2w`, from one minute to 30 days.
public struct SignalWindow: Sendable, Hashable, CustomStringConvertible {
    /// The unit a window is written in, with its letter.
    public enum Unit: Character, Sendable, CaseIterable {
        case minutes = "m"
        case hours = "h"
        case days = "d"
        case weeks = "w"

        /// The unit's length in seconds.
        public var seconds: Int {
            switch self {
            case .minutes: 60
            case .hours: 3_600
            case .days: 86_400
            case .weeks: 604_800
            }
        }
    }

    /// The shortest and longest windows, in seconds.
    public static let secondsRange: ClosedRange<Int> = 60...(30 * 86_400)

    /// How many units.
    public let amount: Int
    /// The unit it is written in.
    public let unit: Unit

    /// A window of `amount` units; `nil` outside ``secondsRange``.
    public init?(_ amount: Int, _ unit: Unit) {
        guard amount > 0, amount <= Self.secondsRange.upperBound / unit.seconds,
            Self.secondsRange.contains(amount * unit.seconds)
        else { return nil }
        self.amount = amount
        self.unit = unit
    }

    /// The window a name segment (`15m`) writes; `nil` for anything else.
    public init?(segment: some StringProtocol) {
        guard let letter = segment.last, let unit = Unit(rawValue: letter), let amount = Int(segment.dropLast()) else { return nil }
        self.init(amount, unit)
    }

    /// The window's length in seconds.
    public var seconds: Int { amount * unit.seconds }

    /// The segment in its canonical form (`5m` for a window read from `05m` or `+5m`): the form rules should use,
    /// since a signal's name is its text.
    public var description: String { "\(amount)\(unit.rawValue)" }

    /// A window of whole minutes. Traps outside ``secondsRange``: for windows written in code.
    public static func minutes(_ amount: Int) -> SignalWindow { make(amount, .minutes) }
    /// A window of whole hours. Traps outside ``secondsRange``.
    public static func hours(_ amount: Int) -> SignalWindow { make(amount, .hours) }
    /// A window of whole days. Traps outside ``secondsRange``.
    public static func days(_ amount: Int) -> SignalWindow { make(amount, .days) }
    /// A window of whole weeks. Traps outside ``secondsRange``.
    public static func weeks(_ amount: Int) -> SignalWindow { make(amount, .weeks) }

    private static func make(_ amount: Int, _ unit: Unit) -> SignalWindow {
        guard let window = SignalWindow(amount, unit) else {
            preconditionFailure("\(amount)\(unit.rawValue) is outside the velocity windows (1m to 30d)")
        }
        return window
    }
}
