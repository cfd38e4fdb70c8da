/// One subject seen with another, for distinct counts (`distinct.<counted>.<per>.<window>`): the member (the
/// counted subject's 16-byte keyed hash) of a series (one app, one subject counted per, and what is counted per it:
/// a 16-byte id the engine derives), seen last in the minute starting at `lastSeen` (seconds since 1970).
public struct DistinctSighting: Sendable, Hashable {
    public var series: [UInt8]
    public var member: [UInt8]
    public var lastSeen: Int64

    public init(series: [UInt8], member: [UInt8], lastSeen: Int64) {
        self.series = series
        self.member = member
        self.lastSeen = lastSeen
    }
}

/// One distinct count to read: how many members of `series` were seen at or after `since`, leaving out `excluding`
/// (the reader's own sightings, which the store may or may not hold yet: the reader adds those itself), at most
/// `DistinctCount.maximum`, so that a series with very many members (a carrier's shared IP) costs no more than that.
public struct DistinctCountRead: Sendable, Hashable {
    public var series: [UInt8]
    public var since: Int64
    public var excluding: [[UInt8]]

    public init(series: [UInt8], since: Int64, excluding: [[UInt8]] = []) {
        self.series = series
        self.since = since
        self.excluding = excluding
    }
}

/// The series ids a purge slice covers, as bounds on the ids: from the first byte's one-byte id (inclusive) to the
/// byte after the last (exclusive; `nil` past 255). Ids compare bytewise in both stores.
public enum DistinctSeriesSlice {
    public static func bounds(_ firstBytes: ClosedRange<UInt8>) -> (lower: [UInt8], upper: [UInt8]?) {
        ([firstBytes.lowerBound], firstBytes.upperBound == .max ? nil : [firstBytes.upperBound + 1])
    }
}
