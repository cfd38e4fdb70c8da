import AttestGuardStore
import AttestGuardSQLite
import AttestTestSupport
import DeviceSimulator
import Foundation
import Testing

/// `attestguard rules backtest` on the SQLite file a running `attestguard serve` holds, while requests keep
/// writing to it: the backtest reads the log read-only, and the server neither refuses nor fails a request.
@Suite("attestguard rules backtest beside a running server", .serialized)
struct BacktestBesideServerTests {
    static let appId = "ABCDE12345.com.example.attestguard"

    /// Assertions one after another until stopped or refused, each a challenge and the assertion that consumes it:
    /// two writes on the request path and one logged verdict. Stopping lets the assertion in flight finish.
    actor Traffic {
        private let server: ServerProcess
        /// The app, its key's counter at the last assertion signed.
        private(set) var app: SimulatedAppClient
        private var stopping = false
        private var finished = false
        private var waiting: [CheckedContinuation<Void, Never>] = []
        /// Assertions answered 200.
        private(set) var accepted = 0
        /// Every other answer: the route, its status and error code.
        private(set) var failures: [String] = []

        init(server: ServerProcess, app: SimulatedAppClient) {
            self.server = server
            self.app = app
        }

        func run() async {
            while !stopping && failures.isEmpty {
                do {
                    let challenge = try await server.post("v1/challenges", [
                        "appId": BacktestBesideServerTests.appId, "purpose": "assertion", "userId": app.userId, "keyId": app.key.keyIdBase64,
                    ])
                    guard challenge.status == 201, let value = challenge.json["challenge"] as? String else {
                        failures.append("challenge: \(challenge.status) \(challenge.errorCode ?? "")")
                        continue
                    }
                    let reply = try await server.post("v1/assertions", app.assertion(challenge: value))
                    guard reply.status == 200 else {
                        failures.append("assertion: \(reply.status) \(reply.errorCode ?? "")")
                        continue
                    }
                    accepted += 1
                    wake()
                } catch {
                    failures.append("\(error)")
                }
            }
            finished = true
            wake()
        }

        /// Returns once an assertion has been accepted, or the traffic has ended on a failure.
        func firstAcceptance() async {
            guard accepted == 0 && !finished else { return }
            await withCheckedContinuation { waiting.append($0) }
        }

        private func wake() {
            for waiter in waiting { waiter.resume() }
            waiting.removeAll()
        }

        func stop() { stopping = true }
    }

    /// How many entries the decision log at `path` holds, read as the backtest reads it.
    static func loggedDecisions(in path: String) async throws -> Int {
        let reader = try await SQLiteDecisionLogReader.open(path: path, logger: TestStore.logger)
        var count = 0
        var cursor: DecisionLogEntry?
        do {
            while true {
                let page = try await reader.decisions(since: .distantPast, after: cursor, limit: 5_000)
                guard let last = page.last else { break }
                count += page.count
                cursor = last
            }
        } catch {
            await reader.close()
            throw error
        }
        await reader.close()
        return count
    }

    /// Waits until the server's write-behind flush (every second) has written at least `count` entries; gives up
    /// after two minutes, a bound no healthy run comes near.
    static func waitForDecisions(atLeast count: Int, in path: String) async throws -> Int {
        let started = ContinuousClock.now
        while true {
            let logged = try await loggedDecisions(in: path)
            if logged >= count { return logged }
            try #require(ContinuousClock.now - started < .seconds(120), "\(logged) of \(count) decisions logged after two minutes")
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    @Test("a backtest while the server holds the SQLite store and keeps writing: it reports, the server never notices")
    func besideAWritingServer() async throws {
        let path = ServeProcessTests.temporarySQLitePath()
        let environment = ServerProcess.environment(databaseURL: nil, sqlitePath: path)
        let server = try await ServerProcess(environment: environment)
        defer { server.stop() }

        // Before: an attestation and assertions, each a verdict in the log once the write-behind flush has run.
        var app = ServeProcessTests.client(user: "bette", device: "bette-1")
        let attestation = try await server.challenge(purpose: "attestation", userId: "bette")
        let attested = try await server.post("v1/attestations", try app.attestation(challenge: attestation, at: Date()))
        #expect(attested.status == 201, "\(attested.json)")
        for _ in 0..<20 {
            let challenge = try await server.challenge(purpose: "assertion", userId: "bette", keyId: app.key.keyIdBase64)
            let reply = try await server.post("v1/assertions", app.assertion(challenge: challenge))
            #expect(reply.status == 200, "\(reply.json)")
        }
        let before = try await Self.waitForDecisions(atLeast: 21, in: path)

        // During: assertions keep coming (the first accepted before the backtest starts, the last after it ends).
        let traffic = Traffic(server: server, app: app)
        let running = Task { await traffic.run() }
        await traffic.firstAcceptance()
        #expect(await traffic.accepted > 0)
        let backtest = try await CommandLineRunner.run(
            ["rules", "backtest", "--rules", RulesCommandTests.shipped, "--since", "1d", "--json"], environment: environment
        )
        await traffic.stop()
        await running.value
        let accepted = await traffic.accepted
        let failures = await traffic.failures
        #expect(failures.isEmpty, "\(failures)")
        app = await traffic.app

        #expect(backtest.status == 0, "\(backtest.standardError)")
        let decisions = try #require(backtest.json["decisions"] as? Int, "\(backtest.standardOutput)")
        #expect(decisions >= before, "the decisions logged before the backtest started are all replayed")
        #expect(decisions <= 21 + accepted, "no more than the verdicts given")

        // After: the server still writes, its log included.
        for _ in 0..<5 {
            let challenge = try await server.challenge(purpose: "assertion", userId: "bette", keyId: app.key.keyIdBase64)
            let reply = try await server.post("v1/assertions", app.assertion(challenge: challenge))
            #expect(reply.status == 200, "\(reply.json)")
        }
        _ = try await Self.waitForDecisions(atLeast: 21 + accepted + 5, in: path)
        #expect(server.errorLines.isEmpty, "\(server.errorLines)")
        #expect(!server.standardError.contains("store_locked"))
        #expect(server.stop() == 0, "graceful shutdown exits 0")
    }
}
