import AttestTestSupport
import Foundation

/// Runs the built `attestguard` binary and captures its exit status and output.
struct CommandLineRunner {
    struct Result {
        let status: Int32
        let standardOutput: String
        let standardError: String

        /// The standard output parsed as one JSON object.
        var json: [String: Any] {
            (try? JSONSerialization.jsonObject(with: Data(standardOutput.utf8))) as? [String: Any] ?? [:]
        }
    }

    /// The binary beside the test bundle (SwiftPM puts products in one folder).
    static let executable: URL = {
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0])
        var directory = bundle.deletingLastPathComponent()
        while directory.path != "/" {
            let candidate = directory.appendingPathComponent("attestguard")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(".build/debug/attestguard")
    }()

    /// Runs the binary on a thread of its own and waits for it without holding one of Swift concurrency's threads
    /// (a blocking wait there, on two cores, stalled every other test's task for as long as the command ran).
    static func run(_ arguments: [String], environment: [String: String]? = nil) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                continuation.resume(with: Swift.Result { try runBlocking(arguments, environment: environment) })
            }
            thread.start()
        }
    }

    /// Runs `script` with `bash -c` in `directory`, on a thread of its own like ``run(_:environment:)``.
    static func runShell(_ script: String, in directory: URL, environment: [String: String]) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                continuation.resume(with: Swift.Result {
                    try runBlocking(["-c", script], environment: environment, executable: URL(fileURLWithPath: "/bin/bash"), directory: directory)
                })
            }
            thread.start()
        }
    }

    private static func runBlocking(
        _ arguments: [String], environment: [String: String]?, executable: URL = executable, directory: URL? = nil
    ) throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        if let environment { process.environment = environment }
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        try process.runWhenDescriptorsAllow()
        // Both pipes are drained at once: a child that fills one while this reads the other would block for good.
        let errorDrain = PipeDrain(error.fileHandleForReading)
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = errorDrain.wait()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus,
            standardOutput: String(decoding: outputData, as: UTF8.self),
            standardError: String(decoding: errorData, as: UTF8.self)
        )
    }

    /// Writes bytes to a fresh temporary file and returns its path.
    static func temporaryFile(_ bytes: [UInt8], name: String) throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("attestguard-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = directory.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url.path
    }
}

/// Reads a pipe to its end on a thread of its own; ``wait()`` returns what it read.
private final class PipeDrain: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    /// Written by the reading thread before it signals `done`, read only after `wait` has seen the signal.
    private var data = Data()

    init(_ handle: FileHandle) {
        Thread {
            self.data = handle.readDataToEndOfFile()
            self.done.signal()
        }.start()
    }

    func wait() -> Data {
        done.wait()
        return data
    }
}
