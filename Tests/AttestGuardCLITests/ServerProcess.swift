import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// An `attestguard serve` process: started with an environment (port 0), ready once it prints the address it
/// listens on, stopped with SIGTERM.
final class ServerProcess: @unchecked Sendable {
    static let apiKey = "process-test-key-0123456789"
    let process = Process()
    let baseURL: URL
    private let output = Pipe()
    private let errors = Pipe()

    /// The environment of a simulator-mode server trusting the test PKI.
    static func environment(databaseURL: String?, sqlitePath: String?) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["ATTESTGUARD_MODE"] = "simulator"
        environment["ATTESTGUARD_SIMULATOR_SEED"] = "attestguard-tests"
        environment["ATTESTGUARD_SERVER_PORT"] = "0"
        environment["ATTESTGUARD_LOG_LEVEL"] = "warning"
        environment["ATTESTGUARD_APPS_NAMES"] = "main"
        environment["ATTESTGUARD_APPS_MAIN_APP_ID"] = "ABCDE12345.com.example.attestguard"
        environment["ATTESTGUARD_APPS_MAIN_ENVIRONMENTS"] = "development"
        environment["ATTESTGUARD_API_KEYS_NAMES"] = "gateway"
        environment["ATTESTGUARD_API_KEYS_GATEWAY_SECRET_ENV"] = "PROCESS_TEST_KEY"
        environment["ATTESTGUARD_API_KEYS_GATEWAY_SCOPES"] = "verify,score,admin"
        environment["ATTESTGUARD_CHALLENGES_MAX_PER_USER"] = "1000"
        // Tests run many servers against one PostgreSQL: no warm pools, so connections open only as needed.
        environment["ATTESTGUARD_DATABASE_MINIMUM_CONNECTIONS"] = "0"
        environment["ATTESTGUARD_DATABASE_AUTO_MIGRATE"] = "true"
        environment["ATTESTGUARD_DATABASE_POOL_SIZE"] = "8"
        // The suite runs beside heavy tests (the 10,000-receipt batch) on 2 cores: give the store time to answer.
        environment["ATTESTGUARD_DATABASE_TIMEOUT_MILLISECONDS"] = "30000"
        environment["PROCESS_TEST_KEY"] = apiKey
        environment["ATTESTGUARD_DATABASE_URL"] = databaseURL
        environment["ATTESTGUARD_DATABASE_SQLITE_PATH"] = sqlitePath
        return environment
    }

    struct StartFailure: Error, CustomStringConvertible {
        let status: Int32
        let standardError: String
        var description: String { "attestguard serve exited with \(status): \(standardError)" }
    }

    /// Starts the server and waits until it listens (or fails with its exit status and standard error).
    init(environment: [String: String], arguments: [String] = ["serve"], directory: URL? = nil) async throws {
        process.executableURL = CommandLineRunner.executable
        process.arguments = arguments
        process.environment = environment
        if let directory { process.currentDirectoryURL = directory }
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let handle = output.fileHandleForReading
        // Blocking reads on a thread of its own: on the cooperative pool (two threads on a two-core machine) two
        // servers starting at once would starve the test process's other tasks, such as a migration holding the
        // lock the servers wait for.
        let line: String? = await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                var collected = Data()
                while true {
                    let chunk = handle.availableData
                    if chunk.isEmpty { return continuation.resume(returning: nil) }
                    collected.append(chunk)
                    if let text = String(data: collected, encoding: .utf8), let found = text.split(separator: "\n").first(where: { $0.contains("listening on") }) {
                        return continuation.resume(returning: String(found))
                    }
                }
            }
        }
        guard let line, let address = line.split(separator: " ").last, let url = URL(string: String(address)) else {
            process.waitUntilExit()
            let standardError = String(data: errors.fileHandleForReading.readDataToEndOfFile(), encoding: .utf8) ?? ""
            throw StartFailure(status: process.terminationStatus, standardError: standardError)
        }
        baseURL = url
    }

    /// Sends SIGTERM and waits; returns the exit status.
    @discardableResult
    func stop() -> Int32 {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        return process.terminationStatus
    }

    deinit { if process.isRunning { process.terminate() } }

    struct Reply: @unchecked Sendable {
        let status: Int
        let json: [String: Any]
        var errorCode: String? { (json["error"] as? [String: Any])?["code"] as? String }
    }

    func send(_ method: String, _ path: String, body: Data? = nil) async throws -> Reply {
        var request = URLRequest(url: baseURL.appendingPathComponent(path))
        request.httpMethod = method
        request.httpBody = body
        request.setValue("Bearer \(Self.apiKey)", forHTTPHeaderField: "Authorization")
        if body != nil { request.setValue("application/json", forHTTPHeaderField: "Content-Type") }
        let (data, response) = try await URLSession.shared.data(for: request)
        let json = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
        return Reply(status: (response as? HTTPURLResponse)?.statusCode ?? 0, json: json)
    }

    func post(_ path: String, _ value: some Encodable) async throws -> Reply {
        try await send("POST", path, body: try JSONEncoder().encode(value))
    }

    func challenge(purpose: String, userId: String, keyId: String? = nil) async throws -> String {
        var body: [String: String] = ["appId": "ABCDE12345.com.example.attestguard", "purpose": purpose, "userId": userId]
        if let keyId { body["keyId"] = keyId }
        let reply = try await post("v1/challenges", body)
        return try #require(reply.json["challenge"] as? String, "challenge: \(reply.json)")
    }
}
