/// One attestation at a time per key-store entry in the process: two clients of the same user (two screens that
/// each made one) must not attest two keys. The second waits, then finds the first one's key registered.
actor AttestationGate {
    static let shared = AttestationGate()

    private var running: [String: Task<Void, Never>] = [:]

    /// Runs `body` when no other body of `entry` runs.
    func run<Result: Sendable>(_ entry: String, _ body: @escaping @Sendable () async throws -> Result) async throws -> Result {
        while let busy = running[entry] { await busy.value }
        let task = Task { try await body() }
        running[entry] = Task { _ = try? await task.value }
        defer { running[entry] = nil }
        return try await task.value
    }
}
