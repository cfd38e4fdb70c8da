import DeviceSimulator
import AttestCore
import AttestTestSupport
import Foundation
import Testing

/// `attestguard serve` as real processes: two servers on one PostgreSQL, restarts, the SQLite lock, and the
/// no-configuration quick start.
@Suite("attestguard serve processes", .serialized)
struct ServeProcessTests {
    static func client(user: String, device: String) -> SimulatedAppClient {
        SimulatedAppClient(
            device: SimulatedDevice(pki: SimulatorFixtures.pki, identifier: device, environment: .development),
            app: SimulatorFixtures.app,
            userId: user,
            deviceId: device
        )
    }

    static func temporarySQLitePath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("attestguard-process-\(UUID().uuidString).sqlite").path
    }

    @Test("two server processes on one PostgreSQL: 64 concurrent submissions of one assertion, one winner",
          .enabled(if: TestPostgres.isEnabled))
    func twoProcessesOneWinner() async throws {
        let url = try await TestPostgres.freshSchemaURL(prefix: "p")
        let first = try await ServerProcess(environment: ServerProcess.environment(databaseURL: url, sqlitePath: nil))
        let second = try await ServerProcess(environment: ServerProcess.environment(databaseURL: url, sqlitePath: nil))
        defer { first.stop(); second.stop() }

        var app = Self.client(user: "quinn", device: "quinn-1")
        let attestationChallenge = try await first.challenge(purpose: "attestation", userId: "quinn")
        let attested = try await second.post("v1/attestations", try app.attestation(challenge: attestationChallenge, at: Date()))
        #expect(attested.status == 201, "\(attested.json)")
        let challenge = try await second.challenge(purpose: "assertion", userId: "quinn", keyId: app.key.keyIdBase64)
        let body = try JSONEncoder().encode(app.assertion(challenge: challenge))
        let replies = try await withThrowingTaskGroup(of: ServerProcess.Reply.self) { group in
            for index in 0..<64 {
                let server = index.isMultiple(of: 2) ? first : second
                group.addTask { try await server.send("POST", "v1/assertions", body: body) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(replies.filter { $0.status == 200 }.count == 1)
        #expect(replies.filter { $0.status == 409 && $0.errorCode == "assertion_already_accepted" }.count == 63)
        #expect(first.stop() == 0, "graceful shutdown exits 0")
        #expect(second.stop() == 0)
    }

    @Test("a restart loses nothing: key, counter, receipt and an unexpired challenge survive")
    func restartKeepsState() async throws {
        let path = Self.temporarySQLitePath()
        var app = Self.client(user: "rita", device: "rita-1")
        let pending: String
        do {
            let server = try await ServerProcess(environment: ServerProcess.environment(databaseURL: nil, sqlitePath: path))
            let challenge = try await server.challenge(purpose: "attestation", userId: "rita")
            #expect(try await server.post("v1/attestations", try app.attestation(challenge: challenge, at: Date())).status == 201)
            for _ in 0..<3 {
                let next = try await server.challenge(purpose: "assertion", userId: "rita", keyId: app.key.keyIdBase64)
                #expect(try await server.post("v1/assertions", app.assertion(challenge: next)).status == 200)
            }
            pending = try await server.challenge(purpose: "assertion", userId: "rita", keyId: app.key.keyIdBase64)
            #expect(server.stop() == 0)
        }
        let restarted = try await ServerProcess(environment: ServerProcess.environment(databaseURL: nil, sqlitePath: path))
        defer { restarted.stop() }
        let keyId = Base64Text.urlEncoded(app.key.keyId)
        let key = try await restarted.send("GET", "v1/apps/ABCDE12345.com.example.attestguard/keys/\(keyId)")
        #expect(key.status == 200)
        #expect(key.json["counter"] as? Int == 3)
        #expect((key.json["receipt"] as? [String: Any])?["type"] as? String == "ATTEST")
        let reply = try await restarted.post("v1/assertions", app.assertion(challenge: pending))
        #expect(reply.status == 200, "\(reply.json)")
        #expect(reply.json["counter"] as? Int == 4)
    }

    @Test("a second server on the same SQLite file refuses to start")
    func sqliteSingleProcess() async throws {
        let path = Self.temporarySQLitePath()
        let server = try await ServerProcess(environment: ServerProcess.environment(databaseURL: nil, sqlitePath: path))
        defer { server.stop() }
        do {
            let second = try await ServerProcess(environment: ServerProcess.environment(databaseURL: nil, sqlitePath: path))
            second.stop()
            Issue.record("the second server started")
        } catch let failure as ServerProcess.StartFailure {
            #expect(failure.status != 0)
            #expect(failure.standardError.contains("store_locked"), "\(failure.standardError)")
        }
    }

    @Test("a port already taken stops serve with the address, the port and the setting named")
    func portInUse() async throws {
        let first = try await ServerProcess(environment: ServerProcess.environment(databaseURL: nil, sqlitePath: Self.temporarySQLitePath()))
        defer { first.stop() }
        var environment = ServerProcess.environment(databaseURL: nil, sqlitePath: Self.temporarySQLitePath())
        environment["ATTESTGUARD_SERVER_PORT"] = String(first.port)
        do {
            let second = try await ServerProcess(environment: environment)
            second.stop()
            Issue.record("the second server started on a port in use")
        } catch let failure as ServerProcess.StartFailure {
            #expect(failure.status == 1)
            #expect(
                failure.standardError.contains("cannot listen on 127.0.0.1:\(first.port) (server.port): the port is in use by another process"),
                "\(failure.standardError)"
            )
        }
    }

    @Test("migrate says it created the schema in a new file, then that the schema is current")
    func migrateNewFile() async throws {
        let path = Self.temporarySQLitePath()
        let environment = ServerProcess.environment(databaseURL: nil, sqlitePath: path)
        let created = try await CommandLineRunner.run(["migrate"], environment: environment)
        #expect(created.status == 0, "\(created.standardError)")
        #expect(created.standardOutput.hasPrefix("created the schema (version "), "\(created.standardOutput)")
        #expect(created.standardOutput.contains(" in \(path)"))
        let again = try await CommandLineRunner.run(["migrate"], environment: environment)
        #expect(again.standardOutput.hasPrefix("schema is current (version "), "\(again.standardOutput)")
    }

    @Test("with no configuration, serve starts in simulator mode on SQLite with the sample app")
    func quickStart() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("attestguard-quickstart-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("ATTESTGUARD_") }
        environment["ATTESTGUARD_SERVER_PORT"] = "0"
        let server = try await ServerProcess(environment: environment, directory: directory)
        defer { server.stop() }
        let ready = try await server.send("GET", "readyz")
        #expect(ready.status == 200)
        #expect(ready.json["mode"] as? String == "simulator")
        #expect(ready.json["store"] as? String == "sqlite")
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("attestguard.sqlite").path))
    }
}
