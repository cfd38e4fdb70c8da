/// Which successful answers get an access log line when `accessLog.successPercent` is below 100: about that share,
/// spread evenly and unpredictably over the requests, from ``HashedCounter``. `Int.random(in:)` would cost a
/// `getrandom` system call on every request, a sampled log being what a busy server configures.
enum AccessLogSample {
    /// Whether this request's line is written, for `percent` from 1 to 99.
    static func picks(percent: Int) -> Bool {
        Int(HashedCounter.next() % 100) < percent
    }
}
