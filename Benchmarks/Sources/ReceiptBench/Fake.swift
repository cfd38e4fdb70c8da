import FakeApple
import Foundation
import Logging

#if canImport(Glibc)
import Glibc
#endif

/// The fake Apple (development host) the benchmark redeems against, on the system clock.
enum Fake {
    static func configuration() throws -> FakeAppleConfiguration {
        FakeAppleConfiguration(
            environment: .development,
            teamId: Bench.teamId,
            keyId: Bench.providerKeyId,
            providerPublicKeyPEM: try Bench.credentials().publicKeyPEM,
            pki: Bench.pki,
            scenario: Bench.scenario
        )
    }

    /// `fake`: serves on a free loopback port, prints `port N`, and exits when its standard input closes (the
    /// benchmark holds it open), so it never outlives the run.
    static func serve() async throws {
        let watcher = Thread {
            _ = FileHandle.standardInput.readDataToEndOfFile()
            exit(0)
        }
        watcher.start()
        let server = try FakeAppleServer(configuration: try configuration(), logger: Bench.quietLogger) { port in
            FileHandle.standardOutput.write(Data("port \(port)\n".utf8))
        }
        try await server.run()
    }

    /// A fake Apple in a child process (this binary's `fake` command).
    final class Child: @unchecked Sendable {
        let process = Process()
        let input = Pipe()
        let output = Pipe()
        var pid: Int32 { process.processIdentifier }

        /// Starts the child and waits for its port.
        func start() async throws -> Int {
            process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
            process.arguments = ["fake"]
            process.standardInput = input
            process.standardOutput = output
            try process.run()
            let handle = output.fileHandleForReading
            let line: String = await Task.detached {
                var bytes: [UInt8] = []
                while true {
                    let data = handle.readData(ofLength: 1)
                    if data.isEmpty || data.first == UInt8(ascii: "\n") { break }
                    bytes += data
                }
                return String(decoding: bytes, as: UTF8.self)
            }.value
            guard line.hasPrefix("port "), let port = Int(line.dropFirst(5)) else {
                throw BenchError("the fake Apple process did not report a port (got \"\(line)\")")
            }
            return port
        }

        func stop() {
            try? input.fileHandleForWriting.close()
            process.waitUntilExit()
        }
    }
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
