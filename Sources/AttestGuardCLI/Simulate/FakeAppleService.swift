import FakeApple
import ServiceLifecycle

/// Runs the fake Apple in a `ServiceGroup`, so SIGTERM and SIGINT stop it: its Hummingbird application shuts down
/// gracefully (the listener closes, answers in flight are sent, idle connections close) rather than by cancellation.
struct FakeAppleService: Service {
    let server: FakeAppleServer

    func run() async throws {
        try await server.run()
    }
}
