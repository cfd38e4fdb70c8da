/// How often the fake Apple misbehaves, reproducibly.
///
/// For each request the fake takes the request's key (the receipt token, or the device identity for
/// DeviceCheck) and how many requests that key made before, and hashes them with ``seed`` into a number in
/// [0, 1). The rates are consecutive slices of that interval, in the order throttled, server error, dropped,
/// slow; the rest is an ordinary answer. A key's sequence of faults is therefore the same on every run,
/// whatever other keys do concurrently. A rate of 1 makes every request fail that way.
public struct FakeAppleFaults: Sendable, Hashable {
    /// The seed of the hash.
    public var seed: String
    /// The share of requests answered 429.
    public var throttleRate: Double
    /// The `Retry-After` seconds a 429 carries.
    public var retryAfterSeconds: Int
    /// The share of requests answered 500 or 503 (chosen by the same hash).
    public var serverErrorRate: Double
    /// The share of requests whose connection is closed without an answer.
    public var dropRate: Double
    /// The share of requests answered after ``slowDelay``.
    public var slowRate: Double
    /// How long a slow answer waits (through the configuration's injected sleep).
    public var slowDelay: Duration
    /// When set, every authenticated, well-formed request is answered with this status (and a short text body),
    /// for statuses no other rule produces, such as DeviceCheck's 403 and 405.
    public var forcedStatus: Int?

    public init(
        seed: String = "fake-apple-faults",
        throttleRate: Double = 0,
        retryAfterSeconds: Int = 1,
        serverErrorRate: Double = 0,
        dropRate: Double = 0,
        slowRate: Double = 0,
        slowDelay: Duration = .seconds(2),
        forcedStatus: Int? = nil
    ) {
        self.seed = seed
        self.throttleRate = throttleRate
        self.retryAfterSeconds = retryAfterSeconds
        self.serverErrorRate = serverErrorRate
        self.dropRate = dropRate
        self.slowRate = slowRate
        self.slowDelay = slowDelay
        self.forcedStatus = forcedStatus
    }

    /// No faults at all.
    public static let none = FakeAppleFaults()

    /// The fault for the `attempt`th request (counting from 0) of `key`, or `nil` for an ordinary answer.
    public func fault(forKey key: String, attempt: Int) -> FakeAppleFault? {
        if forcedStatus != nil { return .forcedStatus }
        let draw = StableFraction.of(seed, key, String(attempt))
        var bound = throttleRate
        if draw < bound { return .throttled }
        bound += serverErrorRate
        if draw < bound { return .serverError }
        bound += dropRate
        if draw < bound { return .dropped }
        bound += slowRate
        if draw < bound { return .slow }
        return nil
    }

    /// The 5xx a server-error fault answers: 500 or 503, by the same hash.
    public func serverErrorStatus(forKey key: String, attempt: Int) -> Int {
        StableFraction.of(seed, "status", key, String(attempt)) < 0.5 ? 500 : 503
    }
}
