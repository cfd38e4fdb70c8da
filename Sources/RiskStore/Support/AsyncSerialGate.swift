/// Runs async operations one at a time, in arrival order. The embedded store has a single SQLite connection, and
/// a transaction spans several awaits: an actor alone would interleave them.
actor AsyncSerialGate {
    private var busy = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func run<Result: Sendable>(_ operation: @Sendable () async throws -> Result) async throws -> Result {
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
