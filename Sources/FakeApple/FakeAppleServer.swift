import Foundation
public import Logging
import AttestCore
import Hummingbird
import NIOCore
import ServiceLifecycle

/// A fake of Apple's App Attest receipt host and DeviceCheck API, served over HTTP by Hummingbird, for tests,
/// benchmarks and `attestguard simulate apple`.
///
/// Paths: `POST /v1/attestationData` (see the receipt rules in ``FakeAppleScenario``), `POST /v1/query_two_bits`,
/// `POST /v1/update_two_bits`, `POST /v1/validate_device_token`, `GET /fake/stats` (``FakeAppleStats`` as JSON) and
/// `POST /fake/risk-metric` (a key's metric from now on, ``FakeAppleRiskMetricControl``).
/// Every Apple path checks the provider token like Apple (401) and applies ``FakeAppleFaults``.
///
/// DeviceCheck devices: the fake has no devices of its own, so a device token names its device directly; see
/// ``deviceIdentity(forToken:)``.
///
/// Run it with ``run()`` (it returns when its task is cancelled, as a swift-service-lifecycle `Service` does,
/// so a `ServiceGroup` can hold it) or, in tests, with ``withRunning(_:)``.
public struct FakeAppleServer: Sendable {
    public let configuration: FakeAppleConfiguration
    /// The counters and bits, readable while the server runs.
    public let state: FakeAppleState
    private let logger: Logger
    private let onListening: @Sendable (Int) async -> Void

    /// - Parameters:
    ///   - configuration: Address, environment, provider key, PKI, scenario and faults.
    ///   - state: The counters and bits (a new, empty state by default).
    ///   - logger: The server's logger.
    ///   - onListening: Called with the bound port once the server listens.
    /// - Throws: ``FakeAppleError`` (`fake_apple_invalid_provider_key`) when the provider key is not a PEM P-256 public key.
    public init(
        configuration: FakeAppleConfiguration,
        state: FakeAppleState = FakeAppleState(),
        logger: Logger = Logger(label: "attestguard.fake-apple"),
        onListening: @escaping @Sendable (Int) async -> Void = { _ in }
    ) throws {
        _ = try FakeAppleAuthenticator.parseKey(configuration.providerPublicKeyPEM)
        self.configuration = configuration
        self.state = state
        self.logger = logger
        self.onListening = onListening
    }

    /// Serves until the task is cancelled (or a graceful shutdown of the enclosing service group).
    public func run() async throws {
        try await makeApplication(onListening: onListening).run()
    }

    /// Starts the server, runs `body` with the bound port, then stops the server: gracefully (a connection that is
    /// open but idle is closed, one in flight is answered first) for up to `gracePeriod`, then by cancellation.
    /// Cancelling Hummingbird's serving task while an accepted connection is still buffered traps in SwiftNIO
    /// ("Deinited NIOAsyncWriter without calling finish()", apple/swift-nio#3481), so cancellation is the fallback.
    /// - Throws: What `body` throws, or ``FakeAppleError`` (`fake_apple_not_listening`) / the bind error when the
    ///   server could not start.
    public func withRunning<Value: Sendable>(
        gracePeriod: Duration = .seconds(2),
        _ body: (_ port: Int) async throws -> Value
    ) async throws -> Value {
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let application = try await makeApplication { port in
            continuation.yield(port)
            continuation.finish()
        }
        let services = ServiceGroup(configuration: .init(services: [application], logger: logger))
        return try await withThrowingTaskGroup(of: Void.self, returning: Value.self) { group in
            group.addTask {
                defer { continuation.finish() }
                try await services.run()
            }
            var iterator = ports.makeAsyncIterator()
            guard let port = await iterator.next() else {
                try await group.next()
                throw FakeAppleError(.notListening, "the server stopped before listening")
            }
            let outcome: Result<Value, any Error>
            do { outcome = .success(try await body(port)) } catch { outcome = .failure(error) }
            await services.triggerGracefulShutdown()
            group.addTask { try? await Task.sleep(for: gracePeriod) }
            _ = try? await group.next()
            group.cancelAll()
            return try outcome.get()
        }
    }

    /// The device a DeviceCheck token names: the lower-case hex of the token's bytes when the text decodes as
    /// base64 (either alphabet), else the token text itself. Tests make a device's tokens by base64-encoding a
    /// device id, so every token for that id names the same device.
    public static func deviceIdentity(forToken token: String) -> String {
        let text = token.trimmingCharacters(in: .whitespacesAndNewlines)
        if let bytes = Base64Text.decodeEither(text), !bytes.isEmpty { return Hex.encode(bytes) }
        return text
    }

    private func makeApplication(onListening: @escaping @Sendable (Int) async -> Void) async throws -> some ApplicationProtocol {
        let authenticator = try await FakeAppleAuthenticator(configuration: configuration)
        let injector = FakeAppleFaultInjector(faults: configuration.faults, state: state, sleep: configuration.sleep)
        let receipts = FakeAppleReceiptEndpoint(configuration: configuration, state: state, authenticator: authenticator, injector: injector)
        let deviceCheck = FakeAppleDeviceCheckEndpoint(
            configuration: configuration,
            state: state,
            authenticator: authenticator,
            injector: injector
        )
        let state = self.state
        let router = Router(context: FakeAppleRequestContext.self)
        router.post("/v1/attestationData") { request, context in
            try await receipts.handle(request, context: context)
        }
        let operations: [(String, FakeAppleDeviceCheckEndpoint.Operation)] = [
            ("/v1/query_two_bits", .query), ("/v1/update_two_bits", .update), ("/v1/validate_device_token", .validate),
        ]
        for (path, operation) in operations {
            router.post(RouterPath(path)) { request, context in
                try await deviceCheck.handle(operation, request, context: context)
            }
        }
        let riskMetrics = FakeAppleRiskMetricControl(configuration: configuration, state: state)
        router.post("/fake/risk-metric") { request, _ in
            try await riskMetrics.handle(request)
        }
        router.get("/fake/stats") { _, _ in
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            let bytes = (try? encoder.encode(state.stats)).map(Array.init) ?? []
            return FakeAppleResponses.json(200, bytes)
        }
        let application = Application(
            router: router,
            configuration: ApplicationConfiguration(
                address: .hostname(configuration.host, port: configuration.port),
                serverName: "FakeApple"
            ),
            onServerRunning: { channel in
                await onListening(channel.localAddress?.port ?? 0)
            },
            logger: logger
        )
        return application
    }
}
