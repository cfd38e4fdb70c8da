import AttestTestSupport
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// An `attestguard serve` process: started with an environment (port 0), ready once it prints the address it
/// listens on, stopped with SIGTERM. Its standard error (the log) is collected as it runs.
final class ServerProcess: @unchecked Sendable {
    static let apiKey = "process-test-key-0123456789"
    /// The session requests to the servers go through. Foundation's default opens at most 6 connections to a host
    /// and queues the rest: a load test's 8 concurrent clients would wait in the client for each other's answers,
    /// and a request's measured time would hold another's.
    static let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = 64
        return URLSession(configuration: configuration)
    }()
    let process = Process()
    let baseURL: URL
    /// The operator listener's address, when `ATTESTGUARD_OPERATOR_PORT` configures one.
    let operatorURL: URL?
    private let output = Pipe()
    private let errors = Pipe()
    private let log = LogCollector()

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
        environment["ATTESTGUARD_DATABASE_TIMEOUT_MILLISECONDS"] = TestPostgres.operationTimeoutMilliseconds
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
    /// - Parameter fileLimit: Starts it through `/bin/sh` with `ulimit -n` set to this (the process keeps its pid).
    init(environment: [String: String], arguments: [String] = ["serve"], directory: URL? = nil, fileLimit: Int? = nil) async throws {
        if let fileLimit {
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "ulimit -n \(fileLimit) && exec \"$0\" \"$@\"", CommandLineRunner.executable.path] + arguments
        } else {
            process.executableURL = CommandLineRunner.executable
            process.arguments = arguments
        }
        process.environment = environment
        if let directory { process.currentDirectoryURL = directory }
        process.standardOutput = output
        process.standardError = errors
        try await process.runWhenDescriptorsAllowAsync()
        log.start(reading: errors.fileHandleForReading)
        let handle = output.fileHandleForReading
        // Blocking reads on a thread of its own: on the cooperative pool (two threads on a two-core machine) two
        // servers starting at once would starve the test process's other tasks, such as a migration holding the
        // lock the servers wait for.
        // With an operator listener configured, its address is printed too, before or after the API's.
        let expectsOperator = environment["ATTESTGUARD_OPERATOR_PORT"] != nil
        let lines: (api: String, operator: String?)? = await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                var collected = Data()
                while true {
                    let chunk = handle.availableData
                    if chunk.isEmpty { return continuation.resume(returning: nil) }
                    collected.append(chunk)
                    guard let text = String(data: collected, encoding: .utf8) else { continue }
                    let printed = text.split(separator: "\n")
                    let api = printed.first { $0.contains("listening on") }.map(String.init)
                    let operatorLine = printed.first { $0.contains("operator listener at") }.map(String.init)
                    if let api, !expectsOperator || operatorLine != nil {
                        return continuation.resume(returning: (api, operatorLine))
                    }
                }
            }
        }
        guard let lines, let address = lines.api.split(separator: " ").last, let url = URL(string: String(address)) else {
            process.waitUntilExit()
            log.waitForEnd()
            throw StartFailure(status: process.terminationStatus, standardError: log.text)
        }
        baseURL = url
        operatorURL = lines.operator.flatMap { $0.split(separator: " ").last }.flatMap { URL(string: String($0)) }
    }

    /// The port it listens on.
    var port: Int { baseURL.port ?? 0 }

    /// What it has written to standard error (its log) so far.
    var standardError: String { log.text }

    /// The log lines at level `error` or `critical` so far (logfmt: `ts=… level=error msg=…`).
    var errorLines: [String] {
        standardError.split(separator: "\n").map(String.init).filter { line in
            line.contains(" level=error ") || line.contains(" level=critical ")
        }
    }

    /// The CPU time it has used (user and system), from `/proc/<pid>/stat`.
    func cpuTime() throws -> Duration {
        guard let stat = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/stat", encoding: .utf8) else {
            let status = process.isRunning ? "is running" : "exited with \(process.terminationStatus)"
            throw RawConnection.Failure(description: "no CPU time to read: the server \(status); its log:\n\(standardError)")
        }
        // Fields after the parenthesised command name: state is field 3, utime 14, stime 15.
        guard let close = stat.lastIndex(of: ")") else { throw RawConnection.Failure(description: "unreadable stat: \(stat)") }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Int(fields[11]), let system = Int(fields[12]) else {
            throw RawConnection.Failure(description: "unreadable stat: \(stat)")
        }
        let ticksPerSecond = sysconf(Int32(_SC_CLK_TCK))
        return .milliseconds((user + system) * 1_000 / ticksPerSecond)
    }

    /// Sends SIGTERM and waits at most `limit`; returns how long the process took to exit, or `nil` if it had not
    /// exited by then (it is then killed).
    func terminate(within limit: Duration) async -> Duration? {
        let started = ContinuousClock.now
        // Signals go only to a process still running: once it has ended, its pid may be another process's.
        if process.isRunning { process.terminate() }
        while process.isRunning {
            if ContinuousClock.now - started > limit {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
                return nil
            }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return ContinuousClock.now - started
    }

    /// Sends SIGTERM, waits for the process to exit and for its standard error to close; returns the whole log.
    func stopAndReadLog() -> String {
        stop()
        log.waitForEnd()
        return log.text
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

    /// Sends `method` to `path` (below the base URL; a `query`, unescaped, follows it as is).
    func send(_ method: String, _ path: String, query: String? = nil, body: Data? = nil) async throws -> Reply {
        var url = baseURL.appendingPathComponent(path)
        if let query, let withQuery = URL(string: url.absoluteString + "?" + query) { url = withQuery }
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.httpBody = body
        request.setValue("Bearer \(Self.apiKey)", forHTTPHeaderField: "Authorization")
        if body != nil { request.setValue("application/json", forHTTPHeaderField: "Content-Type") }
        let (data, response) = try await Self.session.dataShieldedFromCancellation(for: request)
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

/// Reads a pipe to its end on a thread of its own, keeping what it read.
final class LogCollector: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()
    private let finished = DispatchSemaphore(value: 0)

    func start(reading handle: FileHandle) {
        Thread.detachNewThread { [self] in
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                lock.withLock { data.append(chunk) }
            }
            finished.signal()
        }
    }

    /// Waits (at most 10 s) until the writer has closed the pipe.
    func waitForEnd() { _ = finished.wait(timeout: .now() + 10) }

    var text: String { lock.withLock { String(decoding: data, as: UTF8.self) } }
}
