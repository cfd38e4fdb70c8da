import AppleServices
import DeviceSimulator
import FakeApple
import AttestCore
import Crypto
import Foundation
import Logging
import PostgresNIO
import AttestGuardStore
import AttestGuardPostgres
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Everything the subcommands share: the simulated PKI, app, provider key, and small measuring helpers.
enum Bench {
    static let seed = "attestguard-receipt-bench"
    static let teamId = "ABCDE12345"
    static let providerKeyId = "BENCHKEY01"
    static let app = AppIdentity(appId: "ABCDE12345.com.example.receiptbench")
    static let pki: SimulatedApplePKI = {
        do { return try SimulatedApplePKI(seed: seed) } catch { fatalError("the simulated PKI could not be built: \(error)") }
    }()
    /// The provider key, derived from the seed so that a fake Apple in another process accepts the tokens.
    static var providerKey: P256.Signing.PrivateKey { pki.keys.p256("provider-key") }
    static let scenario = FakeAppleScenario(seed: seed, defaultRiskMetric: 3)
    static let expectedRiskMetric = 3

    static func credentials() throws -> AppleProviderCredentials {
        try AppleProviderCredentials(teamId: teamId, keyId: providerKeyId, privateKeyPEM: providerKey.pemRepresentation)
    }

    static var quietLogger: Logger {
        var logger = Logger(label: "attestguard.receipt-bench")
        logger.logLevel = .critical
        return logger
    }

    static func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("ReceiptBench: \(message)\n".utf8))
        exit(1)
    }
}

/// Command-line options (`--name value` pairs and flags).
struct Options {
    private var values: [String: String] = [:]
    private var flags: Set<String> = []
    var command: String

    init(_ arguments: [String]) {
        var rest = arguments[...]
        command = rest.first.map { $0 == "--help" || $0 == "-h" ? "help" : $0.hasPrefix("--") ? "run" : $0 } ?? "run"
        if let first = rest.first, !first.hasPrefix("--") || command == "help" { rest = rest.dropFirst() }
        while let argument = rest.popFirst() {
            guard argument.hasPrefix("--") else { Bench.fail("unexpected argument \(argument)") }
            let name = String(argument.dropFirst(2))
            if let next = rest.first, !next.hasPrefix("--") {
                values[name] = next
                rest = rest.dropFirst()
            } else {
                flags.insert(name)
            }
        }
    }

    func string(_ name: String) -> String? { values[name] }
    func int(_ name: String, _ fallback: Int) -> Int {
        guard let text = values[name] else { return fallback }
        guard let value = Int(text.replacingOccurrences(of: "_", with: "")), value >= 0 else { Bench.fail("--\(name) wants a number, got \(text)") }
        return value
    }
    func flag(_ name: String) -> Bool { flags.contains(name) }

    var databaseURL: String {
        if let url = values["url"] ?? ProcessInfo.processInfo.environment["ATTESTGUARD_BENCH_DATABASE_URL"], !url.isEmpty { return url }
        Bench.fail("no database: pass --url postgres://... or set ATTESTGUARD_BENCH_DATABASE_URL")
    }
}

/// CPU time and memory readings from /proc.
enum ProcStats {
    /// CPU seconds (user + system) this process used so far.
    static func selfCPU() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }

    static let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))

    /// Fields after "pid (comm) " of /proc/PID/stat: [0] state, [1] ppid, ... [11] utime, [12] stime, [13] cutime, [14] cstime.
    static func statFields(_ pid: Int32) -> [Substring]? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = text.lastIndex(of: ")")
        else { return nil }
        return text[text.index(after: close)...].split(separator: " ")
    }

    /// CPU seconds of one process (user + system), with its reaped children when `children`.
    static func cpu(of pid: Int32, children: Bool = false) -> Double {
        guard let fields = statFields(pid), fields.count > 14 else { return 0 }
        var ticksUsed = (Double(fields[11]) ?? 0) + (Double(fields[12]) ?? 0)
        if children { ticksUsed += (Double(fields[13]) ?? 0) + (Double(fields[14]) ?? 0) }
        return ticksUsed / ticks
    }

    /// CPU seconds of PostgreSQL: the postmaster, its reaped children and its live children (the backends).
    static func postgresCPU(postmaster: Int32) -> Double {
        var total = cpu(of: postmaster, children: true)
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        for entry in entries {
            guard let pid = Int32(entry), let fields = statFields(pid), fields.count > 1, Int32(fields[1]) == postmaster else { continue }
            total += cpu(of: pid)
        }
        return total
    }

    /// Busy and stolen seconds of the whole machine (all cores), from /proc/stat.
    static func machineBusy() -> (busy: Double, steal: Double) {
        guard let text = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix("cpu ") })
        else { return (0, 0) }
        let values = line.split(separator: " ").dropFirst().map { Double($0) ?? 0 }
        guard values.count >= 8 else { return (0, 0) }
        // user nice system idle iowait irq softirq steal
        let busy = values[0] + values[1] + values[2] + values[5] + values[6] + values[7]
        return (busy / ticks, values[7] / ticks)
    }

    /// A `VmXXX` line of /proc/self/status in MiB.
    static func memory(_ field: String) -> Double {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") })
        else { return 0 }
        let kib = line.split(separator: " ").compactMap { Double($0) }.first ?? 0
        return kib / 1024
    }

    /// VmHWM (peak resident set) of another process in MiB.
    static func peakRSS(of pid: Int32) -> Double {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") })
        else { return 0 }
        return (line.split(separator: " ").compactMap { Double($0) }.first ?? 0) / 1024
    }
}

/// CPU seconds of the processes around a measurement: this one, the fake Apple's (when it runs apart), PostgreSQL.
struct CPUSnapshot {
    var wall: ContinuousClock.Instant
    var bench: Double
    var fake: Double
    var postgres: Double
    var machine: Double
    var steal: Double

    static func take(fakePid: Int32?, postmaster: Int32?) -> CPUSnapshot {
        let machine = ProcStats.machineBusy()
        return CPUSnapshot(
            wall: .now,
            bench: ProcStats.selfCPU(),
            fake: fakePid.map { ProcStats.cpu(of: $0) } ?? 0,
            postgres: postmaster.map { ProcStats.postgresCPU(postmaster: $0) } ?? 0,
            machine: machine.busy,
            steal: machine.steal
        )
    }

    /// The usage between `self` and a later snapshot.
    func usage(until end: CPUSnapshot) -> CPUUsage {
        CPUUsage(
            seconds: (end.wall - wall).seconds,
            bench: end.bench - bench,
            fake: end.fake - fake,
            postgres: end.postgres - postgres,
            machine: end.machine - machine,
            steal: end.steal - steal
        )
    }
}

struct CPUUsage {
    var seconds: Double
    var bench: Double
    var fake: Double
    var postgres: Double
    var machine: Double
    var steal: Double
    var other: Double { max(0, machine - bench - fake - postgres - steal) }
}

extension Duration {
    var seconds: Double {
        let (whole, attoseconds) = components
        return Double(whole) + Double(attoseconds) / 1e18
    }
}

/// A PostgreSQL store and its pool task.
struct StoreHandle {
    let store: PostgresRiskStore
    let runner: Task<Void, any Error>

    static func open(url: String, connections: Int) throws -> StoreHandle {
        let store = PostgresRiskStore(
            // As the server opens it by default: a warm pool, no keep-alive queries (see PostgresStoreConfiguration).
            configuration: try PostgresStoreConfiguration(
                url: url,
                maximumConnections: connections,
                minimumConnections: connections,
                keepAlive: nil,
                operationTimeout: .seconds(60)
            ),
            logger: Bench.quietLogger
        )
        return StoreHandle(store: store, runner: Task { try await store.run() })
    }

    func close() { runner.cancel() }

    func execute(_ sql: String) async throws {
        try await store.client().query(PostgresQuery(unsafeSQL: sql), logger: Bench.quietLogger)
    }

    func count(_ sql: String) async throws -> Int {
        let rows = try await store.client().query(PostgresQuery(unsafeSQL: sql), logger: Bench.quietLogger).collect()
        guard let row = rows.first else { return -1 }
        return Int(try row.decode(Int64.self))
    }
}

func formatted(_ value: Double, _ decimals: Int = 0) -> String { String(format: "%.\(decimals)f", value) }

func pad(_ text: String, _ width: Int, right: Bool = true) -> String {
    let padding = String(repeating: " ", count: max(0, width - text.count))
    return right ? padding + text : text + padding
}

/// A value behind a lock, shareable between tasks.
final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>
    init(_ value: Value) { mutex = Mutex(value) }
    func withLock<Result: Sendable>(_ body: (inout sending Value) -> sending Result) -> sending Result { mutex.withLock(body) }
}
