import AttestGuardEngine
import AttestGuardStore
import AttestGuardWire
import AttestTestSupport
import Foundation
import HTTPTypes
import Logging
@testable import AttestGuardRuntime
@testable import AttestGuardServer
import Testing

/// The automatic attestation rollout: outcomes reported through the app-facing route and attestations the server
/// accepted, evaluated at each period boundary of the injected clock by controllers sharing one store.
///
/// Serialized, with the service's suite nested in it: every engine of a ramping app sets the process-wide
/// `attestguard_attestation_ramp_paused{app}` to 0 when it starts, and these are the only tests with one, all on the
/// main app; one of them starting beside the pause check reset the gauge it read (seen once in CI).
@Suite("HTTP: attestation rollout ramp", .serialized)
struct AttestationRampTests {
    static let policyPath = "/v1/admin/apps/\(ServerHarness.appId)/policy"
    static let period: TimeInterval = 3600

    /// A ramp from 10 %, doubling hourly while at least 90 % succeed out of at least 4 attempts, pausing above 20 %
    /// rate-limited attempts.
    static let rampEnvironment = [
        "ATTESTGUARD_APPS_MAIN_RAMP_START_PERCENT": "10",
        "ATTESTGUARD_APPS_MAIN_RAMP_PERIOD_SECONDS": "3600",
        "ATTESTGUARD_APPS_MAIN_RAMP_MINIMUM_SUCCESS_RATE": "0.9",
        "ATTESTGUARD_APPS_MAIN_RAMP_MAXIMUM_RATE_LIMITED_SHARE": "0.2",
        "ATTESTGUARD_APPS_MAIN_RAMP_MINIMUM_ATTEMPTS": "4",
    ]

    /// One period's simulated outcomes: reports through the app-facing route, then `accepted` new keys attested.
    struct Period {
        var attested = 0
        var failed: [Int] = []
        var unsupported = 0
        var accepted = 0
    }

    static func simulate(_ period: Period, api: APIClient, index: Int) async throws {
        var reports: [[String: Any]] = Array(repeating: ["outcome": "attested"], count: period.attested)
        reports += period.failed.map { ["outcome": "failed", "errorCode": $0] }
        reports += Array(repeating: ["outcome": "unsupported"], count: period.unsupported)
        // Each report from a user of its own: a user's outcome counts once a period.
        for (number, report) in reports.enumerated() {
            let headers = AppFacingRouteTests.gatewayHeaders(user: "reporter-\(index)-\(number)")
            let reply = try await AppFacingRouteTests.post(api, "/v1/app/attestation-outcomes", report, headers: headers)
            #expect(reply.status == 204, "\(reply.text)")
        }
        for key in 0..<period.accepted {
            let reply = try await api.attest(SimulatedApps.make(user: "user-\(index)-\(key)", device: "device-\(index)-\(key)"))
            #expect(reply.status == 201, "\(reply.text)")
        }
    }

    /// Moves the clock to the next period's start plus a second.
    static func nextPeriod(_ clock: ManualClock) {
        let now = clock.now().timeIntervalSince1970
        clock.set(Date(timeIntervalSince1970: (now / period).rounded(.down) * period + period + 1))
    }

    static func ramp(_ api: APIClient) async throws -> [String: Any] {
        let reply = try await api.send(.get, policyPath, apiKey: ServerHarness.adminKey)
        #expect(reply.status == 200, "\(reply.text)")
        return reply["ramp"] as? [String: Any] ?? [:]
    }

    static func effectivePercent(_ api: APIClient) async throws -> Int? {
        let reply = try await api.send(.get, policyPath, apiKey: ServerHarness.adminKey)
        return (reply["effective"] as? [String: Any])?["attestationRequiredPercent"] as? Int
    }

    @Test("doubles while success holds, holds below the bound or on too few attempts, pauses on rate limiting, resumes, pins, stops at 100",
          arguments: ServerBackend.available)
    func ramp(backend: ServerBackend) async throws {
        try await ForwardAuthHarness.withDirectories { policies, rules in
            let environment = ForwardAuthHarness.environment(policies: policies, rules: rules).merging(Self.rampEnvironment) { _, new in new }
            try await ServerHarness.run(backend, extraEnvironment: environment) { api in
                let engine = try #require(api.engine)
                let logger = Logger(label: "test.ramp")
                // Two server processes: each its own catalog, both on one store.
                // Each with a webhook publisher: the pause is published once, by the process that took the step.
                let secret = try #require(WebhookSecret(text: "whsec_" + Data(repeating: 3, count: 32).base64EncodedString()))
                let receivers = [WebhookEndpoint(name: "ops", url: URL(string: "https://ops.example.com/hooks")!, secret: secret, events: [.rampPaused])]
                let first = AttestationRampController(
                    store: engine.store, apps: engine.apps, clock: api.clock, logger: logger,
                    webhooks: WebhookPublisher(endpoints: receivers, store: engine.store)
                )
                let otherCatalog = AppCatalog(engine.apps.all)
                let second = AttestationRampController(
                    store: engine.store, apps: otherCatalog, clock: api.clock, logger: logger,
                    webhooks: WebhookPublisher(endpoints: receivers, store: engine.store)
                )

                /// Both controllers at the boundary; returns the percentage and state after, checking one step at most.
                func boundary() async throws -> (steps: [AttestationRampController.Step], percent: Int, state: String) {
                    Self.nextPeriod(api.clock)
                    async let a = first.tick()
                    async let b = second.tick()
                    let steps = try await a + b
                    #expect(steps.count <= 1, "one step per period across processes: \(steps)")
                    let stored = try #require(try await engine.store.attestationRamps().first { $0.appId == ServerHarness.appId })
                    #expect(otherCatalog.ramp(for: ServerHarness.appId) == stored)
                    return (steps, stored.percent, stored.state)
                }

                // Start: the ramp's start percentage, stored once.
                #expect(try await first.tick().isEmpty)
                #expect(try await second.tick().isEmpty)
                #expect(try await engine.store.attestationRamps().map(\.percent) == [10])
                #expect(try await Self.ramp(api)["state"] as? String == "ramping")
                #expect(try await Self.effectivePercent(api) == 10)

                let good = Period(attested: 4, unsupported: 2, accepted: 4)
                try await Self.simulate(good, api: api, index: 0)
                var result = try await boundary()
                #expect(result.percent == 20 && result.state == "ramping" && result.steps.map(\.action) == [.step])
                #expect(try await Self.effectivePercent(api) == 20)

                try await Self.simulate(good, api: api, index: 1)
                result = try await boundary()
                #expect(result.percent == 40 && result.state == "ramping")

                // 4 of 5 attempts succeeded (80 % < 90 %): hold.
                try await Self.simulate(Period(attested: 4, failed: [2], accepted: 4), api: api, index: 2)
                result = try await boundary()
                #expect(result.percent == 40 && result.state == "holding" && result.steps.map(\.action) == [.hold])
                let held = try await Self.ramp(api)
                #expect(held["periodAttempts"] as? Int == 5)
                #expect(held["periodSuccessRate"] as? Double == 0.8)

                // Three reports are too few to step, however good.
                try await Self.simulate(Period(attested: 3, accepted: 3), api: api, index: 3)
                result = try await boundary()
                #expect(result.percent == 40 && result.state == "holding")

                // 2 of 6 attempts rate limited (serverUnavailable); featureUnsupported counts as unsupported: pause.
                try await Self.simulate(Period(attested: 4, failed: [4, 4, 1], accepted: 4), api: api, index: 4)
                result = try await boundary()
                #expect(result.percent == 40 && result.state == "paused" && result.steps.map(\.action) == [.pause])
                let events = try await engine.store.webhookEvents(filter: WebhookEventFilter(webhook: "ops"), cursor: nil, limit: 10)
                #expect(events.map(\.type) == [.rampPaused] && events.first?.subject == "app:\(ServerHarness.appId)")
                let pause = try #require(try events.first.map { try WireJSON.decoder().decode(WebhookEventBody.self, from: Data($0.payload.utf8)) }?.ramp)
                #expect(pause.percent == 40 && pause.attempts == 6 && pause.rateLimitedShare == 2.0 / 6.0)
                let paused = try await Self.ramp(api)
                #expect(paused["periodAttempts"] as? Int == 6)
                #expect(paused["periodRateLimitedShare"] as? Double == 2.0 / 6.0)
                let metrics = try await api.send(.get, "/metrics", apiKey: nil).text
                #expect(metrics.contains(#"attestguard_attestation_ramp_paused{app="\#(ServerHarness.appId)"} 1"#))

                // Paused, a good period changes nothing until an operator resumes.
                try await Self.simulate(good, api: api, index: 5)
                result = try await boundary()
                #expect(result.percent == 40 && result.state == "paused" && result.steps.isEmpty)
                let resumed = try await api.send(.post, Self.policyPath + "/ramp/resume", apiKey: ServerHarness.adminKey)
                #expect(resumed.status == 200, "\(resumed.text)")
                #expect((resumed["ramp"] as? [String: Any])?["state"] as? String == "ramping")
                try await Self.simulate(good, api: api, index: 6)
                result = try await boundary()
                #expect(result.percent == 80 && result.state == "ramping")

                // An operator pins 50 %: in force, and the ramp stops stepping until the pin is cleared.
                let pinned = try await api.send(.put, Self.policyPath, body: Data(#"{"attestationRequiredPercent":50}"#.utf8), apiKey: ServerHarness.adminKey)
                #expect(pinned.status == 200, "\(pinned.text)")
                #expect((pinned["ramp"] as? [String: Any])?["pinned"] as? Bool == true)
                #expect(try await Self.effectivePercent(api) == 50)
                try await Self.simulate(good, api: api, index: 7)
                result = try await boundary()
                #expect(result.percent == 80 && result.steps.isEmpty)
                #expect(try await Self.effectivePercent(api) == 50)
                #expect(try await api.send(.delete, Self.policyPath, apiKey: ServerHarness.adminKey).status == 200)
                #expect(try await Self.effectivePercent(api) == 80)

                // 80 doubled is capped at 100: complete, and nothing moves after.
                try await Self.simulate(good, api: api, index: 8)
                result = try await boundary()
                #expect(result.percent == 100 && result.state == "complete" && result.steps.map(\.action) == [.complete])
                #expect(try await Self.effectivePercent(api) == 100)
                result = try await boundary()
                #expect(result.percent == 100 && result.steps.isEmpty)
            }
        }
    }

    @Test("one user's reports count once per outcome and period, a burst is 429, and one account cannot pause the ramp")
    func oneUserCannotPause() async throws {
        try await ForwardAuthHarness.withDirectories { policies, rules in
            let environment = ForwardAuthHarness.environment(policies: policies, rules: rules).merging(Self.rampEnvironment) { _, new in new }
            try await ServerHarness.run(.sqlite, extraEnvironment: environment) { api in
                let engine = try #require(api.engine)
                let controller = AttestationRampController(store: engine.store, apps: engine.apps, clock: api.clock, logger: Logger(label: "test.ramp"))
                #expect(try await controller.tick().isEmpty)
                Self.nextPeriod(api.clock)
                _ = try await controller.tick()
                let before = try #require(try await engine.store.attestationRamps().first).percent
                // Mallory sends rate-limited reports as fast as the route takes them.
                var statuses: [Int] = []
                for _ in 0..<(AttestationOutcomes.ReportQuota.maximumPerMinute + 2) {
                    let reply = try await AppFacingRouteTests.post(
                        api, "/v1/app/attestation-outcomes", ["outcome": "failed", "errorCode": 4], headers: AppFacingRouteTests.gatewayHeaders(user: "mallory")
                    )
                    statuses.append(reply.status)
                    if reply.status == 429 { #expect(reply.errorCode == "rate_limited" && reply.headers[.retryAfter] != nil, "\(reply.text)") }
                }
                #expect(statuses == Array(repeating: 204, count: AttestationOutcomes.ReportQuota.maximumPerMinute) + [429, 429], "\(statuses)")
                let period = try #require(engine.apps.configuredPolicy(for: ServerHarness.appId)?.attestationRamp).periodStart(of: api.clock.now())
                let counts = try await engine.store.attestationOutcomeCounts(appId: ServerHarness.appId, periodStart: period)
                #expect(counts[.rateLimited] == 1, "one user, one outcome, one count")
                Self.nextPeriod(api.clock)
                _ = try await controller.tick()
                let after = try #require(try await engine.store.attestationRamps().first)
                #expect(after.state != "paused" && after.percent == before, "\(after)")
            }
        }
    }

    @Test("an app without a ramp: reports are accepted and counted nowhere, resume is 404, the policy has no ramp")
    func noRamp() async throws {
        try await ForwardAuthHarness.run(.sqlite, requiredPercent: 30) { api, _ in
            let reply = try await AppFacingRouteTests.post(api, "/v1/app/attestation-outcomes", ["outcome": "attested"])
            #expect(reply.status == 204)
            let bad = try await AppFacingRouteTests.post(api, "/v1/app/attestation-outcomes", ["outcome": "maybe"])
            #expect(bad.status == 400, "\(bad.text)")
            let resume = try await api.send(.post, Self.policyPath + "/ramp/resume", apiKey: ServerHarness.adminKey)
            #expect(resume.status == 404 && resume.errorCode == "ramp_not_configured")
            let policy = try await api.send(.get, Self.policyPath, apiKey: ServerHarness.adminKey)
            #expect(policy["ramp"] == nil)
            #expect((policy["effective"] as? [String: Any])?["attestationRequiredPercent"] as? Int == 30)
            #expect(try await api.engine?.store.attestationRamps().isEmpty == true)
        }
    }
}

extension AttestationRampTests {
    /// The server task that runs the controller: it starts the ramp at once and evaluates after the period boundary of
    /// the engine clock.
    @Suite("Runtime: attestation ramp service")
    struct ServiceTests {
        @Test("starts the ramp, then steps once the clock passes the boundary")
        func serviceSteps() async throws {
            try await ForwardAuthHarness.withDirectories { policies, rules in
                let environment = ForwardAuthHarness.environment(policies: policies, rules: rules)
                    .merging(AttestationRampTests.rampEnvironment) { _, new in new }
                try await ServerHarness.run(.sqlite, extraEnvironment: environment) { api in
                    let engine = try #require(api.engine)
                    let (events, continuation) = AsyncStream.makeStream(of: Void.self)
                    let service = AttestationRampService(
                        controller: AttestationRampController(store: engine.store, apps: engine.apps, clock: api.clock, logger: Logger(label: "test.ramp")),
                        clock: api.clock, logger: Logger(label: "test.ramp"), chunk: 0.01, evaluated: { continuation.yield() }
                    )
                    let task = Task { try await service.run() }
                    defer { task.cancel() }
                    var iterator = events.makeAsyncIterator()
                    _ = await iterator.next()
                    #expect(try await engine.store.attestationRamps().map(\.percent) == [10])
                    try await AttestationRampTests.simulate(.init(attested: 4, accepted: 4), api: api, index: 0)
                    AttestationRampTests.nextPeriod(api.clock)
                    api.clock.advance(by: 30)
                    _ = await iterator.next()
                    let stored = try await engine.store.attestationRamps()
                    #expect(stored.map(\.percent) == [20] && stored.map(\.state) == ["ramping"])
                    #expect(try await AttestationRampTests.effectivePercent(api) == 20)
                }
            }
        }
    }
}
