import AttestTestSupport
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing

/// A gateway under test, nginx or Caddy, run in the foreground from a shipped configuration (only its ports and
/// paths replaced) in a folder of its own; stopped, and its folder removed, by ``stop()``.
final class GatewayProcess: @unchecked Sendable {
    let port: Int
    let directory: URL
    private let process = Process()
    private let log = LogCollector()

    struct StartFailure: Error, CustomStringConvertible {
        let description: String
    }

    /// Starts `executable` and waits (at most 30 s) until `port` accepts connections.
    init(executable: String, arguments: [String], environment: [String: String] = [:], directory: URL, port: Int) async throws {
        self.port = port
        self.directory = directory
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = directory
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = errors
        try await process.runWhenDescriptorsAllowAsync()
        log.start(reading: errors.fileHandleForReading)
        let started = ContinuousClock.now
        while (try? RawConnection(port: port)) == nil {
            guard process.isRunning, ContinuousClock.now - started < .seconds(30) else {
                stop()
                throw StartFailure(description: "\(executable) did not listen on \(port): \(log.text)")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        // Something answers on the port; it is this process only if it is still running (another that took the port
        // first makes it fail to bind and exit).
        try await Task.sleep(for: .milliseconds(100))
        guard process.isRunning else {
            stop()
            throw StartFailure(description: "\(executable) exited: port \(port) was taken: \(log.text)")
        }
    }

    /// What it wrote to standard output and error.
    var output: String { log.text }

    func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: directory)
    }

    deinit { if process.isRunning { process.terminate() } }

    /// A loopback port free right now, for a gateway to bind once it starts (``LoopbackPort``).
    static func freePort() throws -> Int {
        try LoopbackPort.free()
    }

    /// A fresh folder for one gateway's configuration, files and logs.
    static func makeDirectory(_ name: String) throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("attestguard-\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }
}

/// Where the gateways are installed (Debian's packages, which `scripts/test.sh` installs). Locally a missing one
/// disables its tests; under `CI=true` the tests run and fail, so that CI never passes by skipping them.
enum GatewayBinaries {
    static let nginx = "/usr/sbin/nginx"
    static let njsModule = "/usr/lib/nginx/modules/ngx_http_js_module.so"
    static let caddy = "/usr/bin/caddy"

    static var ci: Bool { ProcessInfo.processInfo.environment["CI"] == "true" }
    static var nginxAvailable: Bool { ci || (FileManager.default.isExecutableFile(atPath: nginx) && FileManager.default.fileExists(atPath: njsModule)) }
    static var caddyAvailable: Bool { ci || FileManager.default.isExecutableFile(atPath: caddy) }

    /// The repository's `Gateway` folder, where the shipped configurations are.
    static let shipped = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Gateway")
}
