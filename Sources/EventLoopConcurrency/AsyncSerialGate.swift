/// Runs async operations one at a time, in arrival order: an actor alone would interleave operations that await.
/// The embedded store runs its SQLite transactions through one (a single connection, a transaction spanning
/// several awaits); the velocity recorder its flushes (each must commit before the next begins).
public actor AsyncSerialGate {
    private var busy = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    public init() {}

    public func run<Result: Sendable>(_ operation: @Sendable () async throws -> Result) async throws -> Result {
        await acquire()
        defer { release() }
        return try await operation()
    }

    private func acquire() async {
        if !busy {
            busy = true
            return
        }
        await withCheckedContinuation { waiters.append($0) }
    }

    private func release() {
        if waiters.isEmpty {
            busy = false
        } else {
            waiters.removeFirst().resume()
        }
    }
}
