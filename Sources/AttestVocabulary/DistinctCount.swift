/// What a distinct count counts, and per what (the `<counted>.<per>` of `distinct.<counted>.<per>.<window>`): the
/// users seen with one device, the keys seen with one user. Every pair of two different subjects
/// (``VelocityDimension``) is one: twelve in all.
public struct DistinctCount: Sendable, Hashable, CustomStringConvertible {
    /// The subjects counted (`users` in `distinct.users.device.24h`).
    public let counted: VelocityDimension
    /// The subject they are counted per (`device` in `distinct.users.device.24h`).
    public let per: VelocityDimension

    /// The count of `counted` subjects per `per` subject; `nil` when both are the same.
    public init?(counted: VelocityDimension, per: VelocityDimension) {
        guard counted != per else { return nil }
        self.counted = counted
        self.per = per
    }

    /// Every distinct count, in a fixed order (by `per`, then `counted`, as ``VelocityDimension`` lists them).
    public static let all: [DistinctCount] = VelocityDimension.allCases.flatMap { per in
        VelocityDimension.allCases.compactMap { DistinctCount(counted: $0, per: per) }
    }

    /// The highest count a read reports: a subject seen with more (a carrier's shared IP) reads this many, so that
    /// one read never walks more than this many entries. Rules compare against far smaller numbers.
    public static let maximum = 1_000

    /// The start of the minute holding an instant given in seconds since 1970, in seconds since 1970: distinct counts
    /// keep each sighting to its minute, and a window starts at the minute holding its first instant.
    public static func minute(ofSecondsSince1970 seconds: Double) -> Int64 {
        let second = Int64(seconds.rounded(.down))
        return second - ((second % 60) + 60) % 60
    }

    /// `users.device`: the name's middle segments.
    public var description: String { "\(counted.plural).\(per.rawValue)" }
}

extension VelocityDimension {
    /// The dimension's name in the plural, as distinct counts name what they count (`users`, `ips`).
    public var plural: String { rawValue + "s" }

    /// The dimension a plural name (`users`) names; `nil` for anything else.
    public init?(plural: some StringProtocol) {
        guard plural.hasSuffix("s"), let dimension = VelocityDimension(rawValue: String(plural.dropLast())) else { return nil }
        self = dimension
    }
}
