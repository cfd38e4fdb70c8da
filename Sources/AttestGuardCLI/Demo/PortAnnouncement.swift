/// The port a listener bound, announced once by its `onListening` callback and awaited by whoever needs the
/// address; finished without a port when the listener stopped before it bound.
final class PortAnnouncement: Sendable {
    private let stream: AsyncStream<Int>
    private let continuation: AsyncStream<Int>.Continuation

    init() {
        (stream, continuation) = AsyncStream.makeStream(of: Int.self, bufferingPolicy: .bufferingNewest(1))
    }

    func announce(_ port: Int) {
        continuation.yield(port)
    }

    func finish() {
        continuation.finish()
    }

    /// The port, once announced; throws when the listener stopped first.
    func port() async throws -> Int {
        for await port in stream { return port }
        throw DemoError("the listener stopped before it bound a port (see the log above)")
    }
}
