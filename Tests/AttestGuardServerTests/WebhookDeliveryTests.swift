@testable import AttestGuardEngine
import AttestGuardRuntime
import AttestGuardStore
import AttestGuardWire
import AttestTestSupport
import AttestVocabulary
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Synchronization
import Testing

/// Webhooks end to end: events published by the engine's own services go into the outbox, a receiver that is down
/// at first loses none of them, each subject's events arrive in order, and every delivery carries a Standard Webhooks
/// signature that a receiver checks with its own HMAC.
@Suite("Webhooks: delivery to a receiver that was down")
struct WebhookDeliveryTests {
    static let shop = "ABCDE12345.com.example.shop"
    static let start = Date(timeIntervalSince1970: 1_800_000_000)
    static let secretText = "whsec_" + Data((0..<32).map { UInt8($0) }).base64EncodedString()

    /// A receiver as an app's backend would write one: it checks the signature and the timestamp itself, keeps the
    /// first delivery of each event id, and answers 500 to the first delivery of the events it is told to refuse once.
    final class Receiver: Sendable {
        struct Delivery: Sendable {
            var id: String
            var body: WebhookEventBody
        }

        let key: Data
        let clock: ManualClock
        let refuseOnce: Mutex<Set<String>>
        let accepted = Mutex<[Delivery]>([])
        let refused = Mutex<[String]>([])

        init(key: Data, clock: ManualClock, refuseOnce: Set<String> = []) {
            self.key = key
            self.clock = clock
            self.refuseOnce = Mutex(refuseOnce)
        }

        /// Whether the headers sign `body` under the receiver's key, at most five minutes from its clock.
        func verifies(id: String?, timestamp: String?, signature: String?, body: Data) -> Bool {
            guard let id, let timestamp, let seconds = Int64(timestamp), let signature,
                abs(clock.now().timeIntervalSince1970 - Double(seconds)) <= 300
            else { return false }
            let mac = HMAC<SHA256>.authenticationCode(for: Data("\(id).\(timestamp).".utf8) + body, using: SymmetricKey(data: key))
            return signature.split(separator: " ").contains { $0 == "v1," + Data(mac).base64EncodedString() }
        }

        func take(_ request: Request) async throws -> HTTPResponse.Status {
            let body = Data(buffer: try await request.body.collect(upTo: 1 << 20))
            let id = request.headers[HTTPField.Name("webhook-id")!]
            guard verifies(id: id, timestamp: request.headers[HTTPField.Name("webhook-timestamp")!],
                           signature: request.headers[HTTPField.Name("webhook-signature")!], body: body),
                let id, let event = try? WireJSON.decoder().decode(WebhookEventBody.self, from: body), event.id == id
            else { return .badRequest }
            if refuseOnce.withLock({ $0.remove(id) != nil }) {
                refused.withLock { $0.append(id) }
                return .internalServerError
            }
            accepted.withLock { accepted in
                if !accepted.contains(where: { $0.id == id }) { accepted.append(Delivery(id: id, body: event)) }
            }
            return .noContent
        }

        /// Serves on `port` until the returned task is cancelled; returns once it listens.
        func serve(port: Int) async throws -> Task<Void, any Error> {
            let router = Router()
            router.post("/hooks") { request, _ -> Response in Response(status: try await self.take(request)) }
            let listening = AsyncStream<Void>.makeStream()
            let app = Application(
                router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)),
                onServerRunning: { _ in listening.continuation.yield() }, logger: Logger(label: "test.receiver")
            )
            let task = Task { try await app.runService(gracefulShutdownSignals: []) }
            for await _ in listening.stream { break }
            return task
        }
    }

    @Test("a down receiver loses nothing; each subject's events arrive in order, signed", arguments: TestStoreBackend.available)
    func downThenUp(backend: TestStoreBackend) async throws {
        try await withTestStore(backend) { (test: TestStore) async throws in
            let clock = ManualClock(Self.start)
            let port = try LoopbackPort.free()
            let secret = try #require(WebhookSecret(text: Self.secretText))
            var settings = EngineSettings()
            settings.webhooks = [
                WebhookEndpoint(name: "support", url: URL(string: "http://127.0.0.1:\(port)/hooks")!, secret: secret),
                WebhookEndpoint(name: "verdicts-only", url: URL(string: "http://127.0.0.1:\(port)/elsewhere")!, secret: secret, events: [.verdictDeny]),
            ]
            let engine = Engine(store: test.store, apps: AppCatalog([AppPolicy(appId: Self.shop)]), settings: settings, clock: clock)
            let logger = Logger(label: "test.webhooks")
            let policy = AppPolicyChanges(store: test.store, apps: engine.apps, clock: clock, logger: logger, webhooks: engine.webhooks.publisher)

            // Changes made through the engine's services, each of which publishes its event before it returns.
            _ = try await engine.lists.create(name: "blocked_ips", kind: .cidr, description: "", actor: "ana")
            _ = try await engine.lists.create(name: "promo_abusers", kind: .string, description: "", actor: "ana")
            let add = ManagedListChangeSubmission.add([ManagedListEntrySubmission(value: "203.0.113.0/24", position: "entry 1")])
            _ = try await engine.lists.change("blocked_ips", add, actor: "ana")
            try await policy.replace(appId: Self.shop, with: .init(mode: .monitor), expectedRevision: nil, by: "ops", logger: logger)
            let remove = ManagedListChangeSubmission.remove([ManagedListEntrySubmission(value: "203.0.113.0/24", position: "entry 1")])
            _ = try await engine.lists.change("blocked_ips", remove, actor: "ana")
            try await engine.lists.delete("promo_abusers", actor: "ana")
            try await policy.replace(appId: Self.shop, with: nil, expectedRevision: nil, by: "ops", logger: logger)
            try await policy.replace(appId: Self.shop, with: .init(attestationRequiredPercent: 50), expectedRevision: nil, by: "ops", logger: logger)
            let published = try await test.store.webhookEvents(filter: WebhookEventFilter(), cursor: nil, limit: 100).reversed().map { $0 }
            #expect(published.allSatisfy { $0.webhook == "support" }, "the verdicts-only receiver takes none of these")
            #expect(published.map(\.subject) == [
                "list:blocked_ips", "list:promo_abusers", "list:blocked_ips", "app:\(Self.shop)", "list:blocked_ips", "list:promo_abusers",
                "app:\(Self.shop)",
            ], "a policy change that leaves the mode alone publishes nothing")

            let transport = HTTPWebhookTransport()
            defer { Task { await transport.shutdown() } }
            let dispatcher = WebhookDispatcher(
                endpoints: settings.webhooks, store: test.store, transport: transport, clock: clock, process: "test"
            )
            // Down: every subject's first event is tried once, refused, and waits 10 s.
            #expect(try await dispatcher.deliverDue() == 3)
            let waiting = try await test.store.webhookEvents(filter: WebhookEventFilter(status: .pending), cursor: nil, limit: 100)
            #expect(waiting.count == published.count)
            let tried = waiting.filter { $0.attempts == 1 }
            #expect(tried.count == 3 && tried.allSatisfy { $0.lastStatus == nil && !$0.lastError.isEmpty })
            #expect(tried.allSatisfy { $0.nextAttemptAt == Self.start.addingTimeInterval(10) })
            clock.advance(by: 5)
            #expect(try await dispatcher.deliverDue() == 0, "nothing is due before its back-off ends")

            // Up, refusing the second change of blocked_ips once: that list's later events wait behind it.
            let receiver = Receiver(key: secret.key, clock: clock, refuseOnce: [published[2].eventId])
            let serving = try await receiver.serve(port: port)
            defer { serving.cancel() }
            clock.advance(by: 6)
            try await dispatcher.deliverDue()
            #expect(receiver.refused.withLock { $0 } == [published[2].eventId])
            let early = receiver.accepted.withLock { $0.map(\.id) }
            #expect(!early.contains(published[4].eventId), "blocked_ips's later change waits for the refused one")
            #expect(Set(early) == Set([0, 1, 3, 5, 6].map { published[$0].eventId }))
            clock.advance(by: 10)
            try await dispatcher.deliverDue()

            let accepted = receiver.accepted.withLock { $0 }
            #expect(Set(accepted.map(\.id)) == Set(published.map(\.eventId)), "every event acknowledged in the store arrives")
            for subject in Set(published.map(\.subject)) {
                let order = published.filter { $0.subject == subject }.map(\.eventId)
                #expect(accepted.filter { $0.body.subject == subject }.map(\.id) == order, "\(subject) arrives in order")
            }
            let modes = accepted.compactMap(\.body.mode)
            #expect(modes == [WebhookModeBody(from: "enforce", to: "monitor", by: "ops"), WebhookModeBody(from: "monitor", to: "enforce", by: "ops")])
            let lists = accepted.compactMap(\.body.list).filter { $0.name == "blocked_ips" }
            #expect(lists.map(\.change) == ["created", "added", "removed"] && lists.map(\.entries) == [0, 1, 0] && lists[1].values == ["203.0.113.0/24"])
            let finished = try await test.store.webhookEvents(filter: WebhookEventFilter(status: .delivered), cursor: nil, limit: 100)
            #expect(finished.count == published.count)
            #expect(try await test.store.webhookBacklog().isEmpty)
            let refusedLog = try await test.store.webhookAttempts(eventRow: published[2].id)
            #expect(refusedLog.map(\.outcome) == [.retry, .delivered] && refusedLog.map(\.statusCode) == [500, 204])
            let downLog = try await test.store.webhookAttempts(eventRow: published[0].id)
            #expect(downLog.map(\.outcome) == [.retry, .delivered] && downLog.map(\.statusCode) == [nil, 204] && downLog[0].error.contains("refused"))
        }
    }

    @Test("a receiver that answers a head and stalls fails the attempt at the timeout; the claim's other events go on")
    func stalledReceiver() async throws {
        try await withTestStore(.sqlite) { (test: TestStore) async throws in
            let clock = ManualClock(Self.start)
            let port = try LoopbackPort.free()
            let secret = try #require(WebhookSecret(text: Self.secretText))
            let router = Router()
            router.post("/stall") { _, _ -> Response in
                Response(status: .ok, body: ResponseBody { writer in
                    try await writer.write(ByteBuffer(string: "{"))
                    try await Task.sleep(for: .seconds(120))
                })
            }
            router.post("/fine") { _, _ -> Response in Response(status: .noContent) }
            let listening = AsyncStream<Void>.makeStream()
            let app = Application(
                router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)),
                onServerRunning: { _ in listening.continuation.yield() }, logger: Logger(label: "test.receiver")
            )
            let serving = Task { try await app.runService(gracefulShutdownSignals: []) }
            defer { serving.cancel() }
            for await _ in listening.stream { break }
            let endpoints = [
                WebhookEndpoint(name: "stalling", url: URL(string: "http://127.0.0.1:\(port)/stall")!, secret: secret),
                WebhookEndpoint(name: "fine", url: URL(string: "http://127.0.0.1:\(port)/fine")!, secret: secret),
            ]
            let publisher = WebhookPublisher(endpoints: endpoints, store: test.store)
            await publisher.publish(.listChanged("blocked_ips", .created, by: "ana", at: Self.start))
            let transport = HTTPWebhookTransport()
            defer { Task { await transport.shutdown() } }
            let dispatcher = WebhookDispatcher(
                endpoints: endpoints, store: test.store, transport: transport, clock: clock, timeout: .seconds(3), process: "test"
            )
            let started = ContinuousClock.now
            #expect(try await dispatcher.deliverDue() == 2)
            #expect(ContinuousClock.now - started < .seconds(Int64(WebhookDispatcher.lease)), "the attempt ends at its timeout, within its lease")
            let events = try await test.store.webhookEvents(filter: WebhookEventFilter(), cursor: nil, limit: 10)
            let stalled = try #require(events.first { $0.webhook == "stalling" })
            #expect(stalled.status == .pending && stalled.lastError == "no complete answer within 3000 ms", "\(stalled.lastError)")
            // The other receiver's attempt finished beside it (on a loaded machine it may itself have run out of time).
            let fine = try #require(events.first { $0.webhook == "fine" })
            #expect(try await test.store.webhookAttempts(eventRow: fine.id).count == 1)
        }
    }

    @Test("the signature is Standard Webhooks': the reference library's value for a fixed secret, id, instant and body")
    func standardSignature() throws {
        // From the `standardwebhooks` Python package (Webhook(secret).sign) for these inputs.
        let secret = try #require(WebhookSecret(text: "whsec_AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="))
        let signature = WebhookSignature.sign(id: "evt_test", timestamp: 1_800_000_000, body: Data(#"{"type":"key.revoked"}"#.utf8), secret: secret)
        #expect(signature == "v1,4qgAYp0ZIusx3O7hBuNy8AS43yk6vLZVdslB05M2/Iw=")
        let receiver = Receiver(key: secret.key, clock: ManualClock(Self.start))
        let body = Data(#"{"type":"key.revoked"}"#.utf8)
        #expect(receiver.verifies(id: "evt_test", timestamp: "1800000000", signature: signature, body: body))
        #expect(!receiver.verifies(id: "evt_test", timestamp: "1800000000", signature: signature, body: Data(#"{"type":"key.revoked "}"#.utf8)))
        #expect(!receiver.verifies(id: "evt_other", timestamp: "1800000000", signature: signature, body: body), "the id is signed")
        #expect(!receiver.verifies(id: "evt_test", timestamp: "1799999000", signature: signature, body: body), "an old timestamp is refused")
        #expect(WebhookSecret(text: "whsec_c2hvcnQ=") == nil && WebhookSecret(text: "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=") == nil)
    }

    @Test("during a rotation each delivery carries one signature per secret, and a receiver holding either verifies it")
    func rotationSignsWithEverySecret() throws {
        let current = try #require(WebhookSecret(text: "whsec_AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8="))
        let previous = try #require(WebhookSecret(text: "whsec_" + Data(repeating: 7, count: 32).base64EncodedString()))
        let body = Data(#"{"type":"key.revoked"}"#.utf8)
        let signature = WebhookSignature.sign(id: "evt_test", timestamp: 1_800_000_000, body: body, secrets: [current, previous])
        // The first is the reference library's value for the current secret (above); the standard separates them by a space.
        #expect(signature.hasPrefix("v1,4qgAYp0ZIusx3O7hBuNy8AS43yk6vLZVdslB05M2/Iw= v1,"))
        #expect(signature == [current, previous].map { WebhookSignature.sign(id: "evt_test", timestamp: 1_800_000_000, body: body, secret: $0) }.joined(separator: " "))
        for secret in [current, previous] {
            let receiver = Receiver(key: secret.key, clock: ManualClock(Self.start))
            #expect(receiver.verifies(id: "evt_test", timestamp: "1800000000", signature: signature, body: body))
        }
        let stranger = Receiver(key: Data(repeating: 9, count: 32), clock: ManualClock(Self.start))
        #expect(!stranger.verifies(id: "evt_test", timestamp: "1800000000", signature: signature, body: body))
    }
}
