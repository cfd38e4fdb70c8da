// AttestGuard benchmarks: single-core verification throughput on real Apple App Attest objects.
//
// Run through `Benchmarks/run.sh` (release build, pinned to one core, openssl reference).
// Options: --seconds S (per run, default 3), --runs N (default 3, best is reported), --warmup S (default 1),
//          --fixtures DIR, --openssl PATH (run `openssl speed -seconds S ecdsap256` in every round, interleaved
//          with the Swift runs so load changes hit both sides of the ratio alike), --openssl-verify X (a fixed
//          openssl P-256 verify/s instead), --only NAME[,NAME] (assertion, p256, attestation, attestation-steps,
//          receipt, breakdown), --breakdown (also time each step of the assertion path), --wall (rank and compare by
//          wall-clock time; openssl then gets -elapsed), --assertion-loop S (only the assertion loop for S seconds:
//          for profilers).
//
// Clocks: every run records ops per second of wall-clock time and ops per second of this process's CPU time.
// By default results and the ratio use CPU time, because that is what `openssl speed` divides by by default
// (user CPU time): on a busy machine, where the pinned core is shared, both sides then stay comparable.
// On an idle machine the two clocks agree.

import AppleReceipts
import AttestCore
import Crypto
import Dispatch
import Foundation
import X509

// MARK: - Options

struct Options {
    var seconds = 3.0
    var runs = 3
    var warmup = 1.0
    var fixtures: String = {
        // Benchmarks/Sources/AttestBench/main.swift -> <repo>/Tests/Fixtures/apple/real-device-dev-2024
        let file = URL(fileURLWithPath: #filePath)
        return file.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Tests/Fixtures/apple/real-device-dev-2024").path
    }()
    var openssl: String?
    var opensslVerify: Double?
    var only: Set<String>?
    var breakdown = false
    var assertionLoop: Double?
    var wall = false

    static func parse(_ arguments: [String]) -> Options {
        var options = Options()
        var iterator = arguments.makeIterator()
        func value(_ flag: String) -> String {
            guard let value = iterator.next() else { fail("\(flag) needs a value") }
            return value
        }
        func number(_ flag: String) -> Double {
            let text = value(flag)
            guard let number = Double(text), number > 0 else { fail("\(flag): \"\(text)\" is not a positive number") }
            return number
        }
        while let argument = iterator.next() {
            switch argument {
            case "--seconds": options.seconds = number(argument)
            case "--runs": options.runs = max(1, Int(number(argument)))
            case "--warmup": options.warmup = number(argument)
            case "--fixtures": options.fixtures = value(argument)
            case "--openssl": options.openssl = value(argument)
            case "--openssl-verify": options.opensslVerify = number(argument)
            case "--only": options.only = Set(value(argument).split(separator: ",").map(String.init))
            case "--breakdown": options.breakdown = true
            case "--wall": options.wall = true
            case "--assertion-loop": options.assertionLoop = number(argument)
            case "-h", "--help":
                print("usage: AttestBench [--seconds S] [--runs N] [--warmup S] [--fixtures DIR] [--openssl PATH | --openssl-verify X] [--only LIST] [--breakdown] [--wall] [--assertion-loop S]")
                exit(0)
            default: fail("unknown argument \(argument)")
            }
        }
        return options
    }

    func wants(_ name: String) -> Bool {
        if let only { return only.contains(name) }
        return name != "breakdown" || breakdown
    }
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("AttestBench: \(message)\n".utf8))
    exit(1)
}

// MARK: - Fixtures

struct Fixtures {
    let assertion: [UInt8]
    let publicKey: P256.Signing.PublicKey
    let clientData: [UInt8]
    let attestation: [UInt8]
    /// The attestation's x5c, parsed: the credential certificate and "Apple App Attestation CA 1".
    let credentialCertificate: Certificate
    let intermediate: Certificate
    let receipt: [UInt8]
    let app = AppIdentity(appId: "979F6L8R8M.org.reactjs.native.example.RNClientAttest")
    let keyId: [UInt8] = Array(Data(base64Encoded: "+7NWLawiwi1lyK6vxqHzUp1bXzMji/Ft89ztMqPW4H4=")!)
    let challenge: [UInt8] = Hex.decode("279e86037bb94c7a8965aa1f8d7c16ee")!
    /// 2024-01-27T16:15:40Z: the certificates have expired since, so everything is verified at this instant.
    let instant = Date(timeIntervalSince1970: 1_706_372_140)

    init(directory: String) {
        func read(_ name: String) -> Data {
            let path = (directory as NSString).appendingPathComponent(name)
            guard let data = FileManager.default.contents(atPath: path) else { fail("cannot read \(path)") }
            return data
        }
        func base64(_ name: String) -> [UInt8] {
            guard let data = Data(base64Encoded: read(name), options: .ignoreUnknownCharacters) else {
                fail("\(name) is not base64")
            }
            return Array(data)
        }
        assertion = base64("assertion.b64")
        attestation = base64("attestation.b64")
        receipt = base64("receipt_attest.b64")
        clientData = Array(read("assertion_clientData.json"))
        do {
            publicKey = try P256.Signing.PublicKey(pemRepresentation: String(decoding: read("public_key.pem"), as: UTF8.self))
        } catch {
            fail("public_key.pem: \(error)")
        }
        do {
            let x5c = try AttestationObject(cbor: attestation).certificates
            guard x5c.count == 2 else { fail("attestation.b64 carries \(x5c.count) certificates, expected 2") }
            credentialCertificate = try Certificate(derEncoded: x5c[0])
            intermediate = try Certificate(derEncoded: x5c[1])
        } catch {
            fail("attestation.b64: \(error)")
        }
        precondition(ISO8601DateFormatter().date(from: "2024-01-27T16:15:40Z") == instant)
    }

    var attestationRequest: AttestationRequest {
        AttestationRequest(keyId: keyId, app: app, allowedEnvironments: [.development], clientData: .challenge(challenge))
    }
}

// MARK: - Measurement

@inline(__always) func nanoseconds() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

/// CPU time of this process (all threads), in nanoseconds.
func cpuNanoseconds() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}

/// One timed run: ops per second of wall-clock time and of CPU time.
struct Sample {
    var wall: Double
    var cpu: Double
    func rate(wall useWall: Bool) -> Double { useWall ? wall : cpu }
}

/// One benchmark: a body run in batches (sync bodies in a plain loop, async ones awaited one after another).
final class Benchmark {
    enum Body {
        case sync(() -> Void)
        case async(() async -> Void)
    }

    let name: String
    let shortName: String
    let body: Body
    /// Iterations between clock reads (~10 ms), sized by the warm-up.
    var batch = 1
    var samples: [Sample] = []

    init(_ name: String, short shortName: String, sync body: @escaping () -> Void) {
        self.name = name
        self.shortName = shortName
        self.body = .sync(body)
    }

    init(_ name: String, short shortName: String, async body: @escaping () async -> Void) {
        self.name = name
        self.shortName = shortName
        self.body = .async(body)
    }

    func best(wall: Bool) -> Double { samples.map { $0.rate(wall: wall) }.max() ?? 0 }

    /// Runs batches until `seconds` of wall-clock time have passed.
    func timedRun(seconds: Double) async -> Sample {
        var count = 0
        let cpuStart = cpuNanoseconds()
        let start = nanoseconds()
        let duration = UInt64(seconds * 1e9)
        var elapsed: UInt64 = 0
        let batch = self.batch
        switch body {
        case .sync(let body):
            repeat {
                for _ in 0..<batch { body() }
                count += batch
                elapsed = nanoseconds() - start
            } while elapsed < duration
        case .async(let body):
            repeat {
                for _ in 0..<batch { await body() }
                count += batch
                elapsed = nanoseconds() - start
            } while elapsed < duration
        }
        let cpu = cpuNanoseconds() - cpuStart
        return Sample(wall: Double(count) / (Double(elapsed) / 1e9), cpu: Double(count) / (Double(max(cpu, 1)) / 1e9))
    }

    /// Warms up for `seconds` and sizes the batch to about 10 ms.
    func warmUp(seconds: Double) async {
        batch = 1
        let rate = await timedRun(seconds: seconds).wall
        batch = max(1, Int(rate / 100))
    }
}

/// `openssl speed -seconds S ecdsap256`: the verify/s column of the "256 bits ecdsa (nistp256)" line.
/// Runs in this process's CPU affinity (run.sh pins it to the same core as the benchmarks).
/// By default openssl divides by user CPU time; `elapsed` makes it divide by wall-clock time.
func opensslVerifyRate(openssl: String, seconds: Int, elapsed: Bool) -> Double? {
    let clock = elapsed ? ["-elapsed"] : []
    // Openssl versions without -seconds run their own fixed duration (10 s).
    for arguments in [["speed"] + clock + ["-seconds", String(seconds), "ecdsap256"], ["speed"] + clock + ["ecdsap256"]] {
        guard let output = spawnAndRead(openssl, arguments) else { continue }
        let line = output.split(separator: "\n").last { $0.contains("nistp256)") }
        if let rate = line?.split(separator: " ").last.flatMap({ Double($0) }) { return rate }
    }
    return nil
}

/// Runs a program and returns its standard output, or `nil` when it fails. `openssl speed` stops its
/// loops with SIGALRM, and threads of this process (Dispatch, the concurrency pool) block signals, which a
/// child would inherit; so the child is spawned with an empty signal mask and default handlers.
func spawnAndRead(_ path: String, _ arguments: [String]) -> String? {
    var fds: [Int32] = [0, 0]
    guard pipe(&fds) == 0 else { return nil }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addclose(&actions, fds[0])
    posix_spawn_file_actions_addclose(&actions, fds[1])
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var empty = sigset_t()
    sigemptyset(&empty)
    var defaults = sigset_t()
    sigfillset(&defaults)
    sigdelset(&defaults, SIGKILL)
    sigdelset(&defaults, SIGSTOP)
    posix_spawnattr_setsigmask(&attributes, &empty)
    posix_spawnattr_setsigdefault(&attributes, &defaults)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, path, &actions, &attributes, argv, environ)
    close(fds[1])
    defer { close(fds[0]) }
    guard spawned == 0 else { return nil }
    var output: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = buffer.withUnsafeMutableBytes { read(fds[0], $0.baseAddress, $0.count) }
        if count > 0 {
            output += buffer[0..<count]
        } else if count == 0 || errno != EINTR {
            break
        }
    }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
    // Exited normally with status 0.
    guard status & 0x7F == 0, (status >> 8) & 0xFF == 0 else { return nil }
    return String(decoding: output, as: UTF8.self)
}

func format(_ value: Double, decimals: Int) -> String { String(format: "%.\(decimals)f", value) }
func pad(_ text: String, _ width: Int) -> String { text.count >= width ? text : text + String(repeating: " ", count: width - text.count) }
func padLeft(_ text: String, _ width: Int) -> String { text.count >= width ? text : String(repeating: " ", count: width - text.count) + text }
func loadAverage() -> String {
    (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").prefix(3).joined(separator: " ") ?? "?"
}

// MARK: - Sanity checks (a benchmark must never silently measure failures)

func checkAssertion(_ verdict: AssertionVerdict) {
    guard case .valid(let verified) = verdict, verified.counter == 1 else {
        fail("assertion verdict is not valid with counter 1: \(verdict)")
    }
}

func checkAttestation(_ verdict: AttestationVerdict) {
    guard case .valid(let verified) = verdict, verified.environment == .development else {
        fail("attestation verdict is not valid (development): \(verdict)")
    }
}

func checkReceipt(_ verdict: ReceiptVerdict) {
    guard case .valid(let receipt) = verdict, receipt.type == .attest else {
        fail("receipt verdict is not a valid ATTEST receipt: \(verdict)")
    }
}

// MARK: - Main

@main
struct AttestBench {
    static func main() async {
        await run()
    }

    /// Nonisolated, so the whole benchmark (and every awaited verification) runs on one task of the global
    /// executor, with no hops to and from the main actor between iterations.
    nonisolated static func run() async {
        let options = Options.parse(Array(CommandLine.arguments.dropFirst()))
        let fixtures = Fixtures(directory: options.fixtures)
        let assertionVerifier = AssertionVerifier()

        if let seconds = options.assertionLoop {
            // Profiling mode: only the assertion verification loop, nothing else after setup.
            let end = nanoseconds() + UInt64(seconds * 1e9)
            var count = 0
            repeat {
                for _ in 0..<100 {
                    checkAssertion(assertionVerifier.verify(
                        fixtures.assertion, publicKey: fixtures.publicKey, app: fixtures.app,
                        clientData: fixtures.clientData, previousCounter: 0))
                }
                count += 100
            } while nanoseconds() < end
            print("assertion loop: \(count) verifications")
            return
        }

        let attestationVerifier = AttestationVerifier()
        let receiptVerifier = ReceiptVerifier()
        let request = fixtures.attestationRequest
        let receiptExpectation = ReceiptExpectation(appId: fixtures.app.appId)

        // One checked run of each before timing anything.
        checkAssertion(assertionVerifier.verify(
            fixtures.assertion, publicKey: fixtures.publicKey, app: fixtures.app,
            clientData: fixtures.clientData, previousCounter: 0))
        checkAttestation(await attestationVerifier.verify(fixtures.attestation, request: request, at: fixtures.instant))
        checkReceipt(await receiptVerifier.verify(fixtures.receipt, expecting: receiptExpectation, at: fixtures.instant))

        // The raw signature check on the assertion's own data: signature and nonce computed once.
        let object: AssertionObject
        let signature: P256.Signing.ECDSASignature
        do {
            object = try AssertionObject(cbor: fixtures.assertion)
            signature = try P256.Signing.ECDSASignature(derRepresentation: object.signature)
        } catch {
            fail("cannot decode the assertion: \(error)")
        }
        let clientDataHash = Array(SHA256.hash(data: fixtures.clientData))
        let nonce = Data(SHA256.hash(data: object.authenticatorData + clientDataHash))
        let nonceDigest = SHA256.hash(data: nonce)
        guard fixtures.publicKey.isValidSignature(signature, for: nonce) else { fail("raw P-256 check fails on the assertion's nonce") }

        let clock = options.wall ? "wall-clock" : "CPU"
        print("AttestGuard benchmarks: \(options.runs) rounds; in each round every measurement runs >= \(format(options.seconds, decimals: 1)) s")
        print("(after one \(format(options.warmup, decimals: 1)) s warm-up each); openssl speed runs at the start of each round; best round reported;")
        print("rates divide by \(clock) time (\(options.wall ? "openssl speed -elapsed" : "as openssl speed does by default: user CPU time"))")
        print("fixtures: \(options.fixtures)")
        var benchmarks: [Benchmark] = []

        if options.wants("assertion") {
            benchmarks.append(Benchmark("assertion verify (AssertionVerifier)", short: "assertion", sync: {
                checkAssertion(assertionVerifier.verify(
                    fixtures.assertion, publicKey: fixtures.publicKey, app: fixtures.app,
                    clientData: fixtures.clientData, previousCounter: 0))
            }))
        }
        if options.wants("p256") {
            benchmarks.append(Benchmark("swift-crypto P256 isValidSignature(for: Data)", short: "p256", sync: {
                guard fixtures.publicKey.isValidSignature(signature, for: nonce) else { fail("raw P-256 check failed") }
            }))
        }
        if options.wants("attestation") {
            benchmarks.append(Benchmark("attestation verify (AttestationVerifier)", short: "attestation", async: {
                checkAttestation(await attestationVerifier.verify(fixtures.attestation, request: request, at: fixtures.instant))
            }))
        }
        if options.wants("receipt") {
            benchmarks.append(Benchmark("receipt verify (ReceiptVerifier)", short: "receipt", async: {
                checkReceipt(await receiptVerifier.verify(fixtures.receipt, expecting: receiptExpectation, at: fixtures.instant))
            }))
        }
        if options.wants("attestation-steps") {
            // What an attestation verification is made of: the receipt row above, these, and the rest (hashes, the
            // chain's policies and trust stores). Apple's chain is credential certificate -> CA 1 -> root, and both links
            // are P-384 signatures, the costliest steps.
            let leaf = fixtures.credentialCertificate
            let intermediate = fixtures.intermediate
            let root = AppAttestTrustAnchor.appleAppAttestationRoot
            guard intermediate.publicKey.isValidSignature(leaf.signature, for: leaf),
                root.publicKey.isValidSignature(intermediate.signature, for: intermediate)
            else { fail("the attestation's chain does not verify link by link") }
            benchmarks.append(Benchmark("  step: AttestationObject + x5c parse", short: "att-parse", sync: {
                guard let object = try? AttestationObject(cbor: fixtures.attestation),
                    (try? object.certificates.map { try Certificate(derEncoded: $0) })?.count == 2
                else { fail("attestation parse failed") }
            }))
            benchmarks.append(Benchmark("  step: P-384 verify, credential cert by CA 1", short: "p384-leaf", sync: {
                guard intermediate.publicKey.isValidSignature(leaf.signature, for: leaf) else { fail("P-384 check failed") }
            }))
            benchmarks.append(Benchmark("  step: P-384 verify, CA 1 by the root", short: "p384-ca", sync: {
                guard root.publicKey.isValidSignature(intermediate.signature, for: intermediate) else { fail("P-384 check failed") }
            }))
        }
        if options.wants("breakdown") {
            // The steps of AssertionVerifier.verify, one at a time, to see where its time goes.
            benchmarks.append(Benchmark("  step: AssertionObject(cbor:) (CBOR decode)", short: "cbor", sync: {
                guard (try? AssertionObject(cbor: fixtures.assertion)) != nil else { fail("decode failed") }
            }))
            benchmarks.append(Benchmark("  step: ECDSASignature(derRepresentation:)", short: "der", sync: {
                guard (try? P256.Signing.ECDSASignature(derRepresentation: object.signature)) != nil else { fail("DER parse failed") }
            }))
            benchmarks.append(Benchmark("  step: clientDataHash + nonce (2 x SHA-256)", short: "sha", sync: {
                let hash = SHA256.hash(data: fixtures.clientData)
                var hasher = SHA256()
                hasher.update(data: object.authenticatorData)
                hasher.update(data: Array(hash))
                guard Array(hasher.finalize()).count == 32 else { fail("hash") }
            }))
            benchmarks.append(Benchmark("  step: P256 isValidSignature(for: digest)", short: "p256-digest", sync: {
                guard fixtures.publicKey.isValidSignature(signature, for: nonceDigest) else { fail("raw P-256 check failed") }
            }))
        }

        for benchmark in benchmarks { await benchmark.warmUp(seconds: options.warmup) }
        var opensslRuns: [Double] = []
        var loads: [String] = []
        for round in 1...options.runs {
            loads.append(loadAverage())
            var line = "round \(round) (load \(loads.last!)), \(clock) ops/s:"
            if let openssl = options.openssl {
                if let rate = opensslVerifyRate(openssl: openssl, seconds: max(1, Int(options.seconds.rounded())), elapsed: options.wall) {
                    opensslRuns.append(rate)
                    line += " openssl \(format(rate, decimals: 0))"
                } else {
                    line += " openssl ?"
                }
            }
            for benchmark in benchmarks {
                let sample = await benchmark.timedRun(seconds: options.seconds)
                benchmark.samples.append(sample)
                line += " | \(benchmark.shortName) \(format(sample.rate(wall: options.wall), decimals: 0))"
            }
            print(line)
        }
        loads.append(loadAverage())
        let openssl = opensslRuns.max() ?? options.opensslVerify
        printTable(benchmarks, openssl: openssl, opensslRuns: opensslRuns, wall: options.wall)
        print("load average (1/5/15 min) at each round start, then at the end: \(loads.joined(separator: " -> "))")
    }

    static func printTable(_ results: [Benchmark], openssl: Double?, opensslRuns: [Double], wall: Bool) {
        let clock = wall ? "wall" : "CPU"
        let other = wall ? "CPU" : "wall"
        func row(_ name: String, _ best: Double, _ otherBest: String, _ runs: [Double]) {
            let list = runs.map { format($0, decimals: 0) }.joined(separator: ", ")
            print("| \(pad(name, 46)) | \(padLeft(format(best, decimals: 0), 9)) | \(padLeft(format(1e9 / best, decimals: 0), 9)) | \(padLeft(otherBest, 11)) | \(pad(list, 24)) |")
        }
        print("")
        print("| \(pad("single core, best of rounds", 46)) | \(padLeft("ops/s", 9)) | \(padLeft("ns/op", 9)) | \(padLeft("\(other) ops/s", 11)) | \(pad("all rounds (\(clock) ops/s)", 24)) |")
        print("|\(String(repeating: "-", count: 48))|\(String(repeating: "-", count: 10)):|\(String(repeating: "-", count: 10)):|\(String(repeating: "-", count: 12)):|\(String(repeating: "-", count: 26))|")
        for result in results {
            row(result.name, result.best(wall: wall), format(result.best(wall: !wall), decimals: 0), result.samples.map { $0.rate(wall: wall) })
        }
        if let openssl { row("openssl speed ecdsap256 verify (reference)", openssl, "-", opensslRuns) }
        func named(_ shortName: String) -> Benchmark? { results.first { $0.shortName == shortName } }
        let assertion = named("assertion")?.best(wall: wall)
        let raw = named("p256")?.best(wall: wall)
        print("")
        if let openssl, let benchmark = named("assertion") {
            printRatio(benchmark, goal: 80, openssl: openssl, opensslRuns: opensslRuns, wall: wall)
        }
        if let raw, let openssl {
            print("      swift-crypto P256 verify/s / openssl verify/s = \(format(raw / openssl * 100, decimals: 1))%")
        }
        if let assertion, let raw {
            print("      assertion verify/s / swift-crypto P256 verify/s = \(format(assertion / raw * 100, decimals: 1))%")
        }
        if let openssl, let benchmark = named("attestation") {
            printRatio(benchmark, goal: 8, openssl: openssl, opensslRuns: opensslRuns, wall: wall)
        }
        if let attestation = named("attestation"), let receipt = named("receipt"), let parse = named("att-parse"),
            let p384 = named("p384-leaf")
        {
            // Microseconds per operation of each best round; what the steps leave of an attestation is mostly its
            // P-384 verifications, so that remainder over one P-384 verification estimates how many it makes.
            func micros(_ benchmark: Benchmark) -> Double { 1e6 / benchmark.best(wall: wall) }
            let other = micros(attestation) - micros(receipt) - micros(parse)
            print("      per attestation (\(clock) µs, best rounds): \(format(micros(attestation), decimals: 0)) = receipt verify \(format(micros(receipt), decimals: 0)) + AttestationObject and x5c parse \(format(micros(parse), decimals: 0)) + the rest \(format(other, decimals: 0))")
            print("      P-384 verifications per attestation, estimated: the rest / one P-384 verify (\(format(micros(p384), decimals: 0)) µs) = \(format(other / micros(p384), decimals: 2)) (the rest also holds hashes, chain policies, stores)")
        }
    }

    /// Prints `name verify/s / openssl verify/s` (best / best) against a goal, and the ratio of each round: each
    /// round's openssl run precedes its own runs, so that ratio is less exposed to load changes between rounds.
    static func printRatio(_ benchmark: Benchmark, goal: Double, openssl: Double, opensslRuns: [Double], wall: Bool) {
        let ratio = benchmark.best(wall: wall) / openssl * 100
        print("RATIO \(benchmark.shortName) verify/s / openssl verify/s = \(format(ratio, decimals: 1))%  (best / best; goal >= \(format(goal, decimals: 0))%: \(ratio >= goal ? "MET" : "NOT MET"))")
        if opensslRuns.count == benchmark.samples.count {
            let ratios = zip(benchmark.samples, opensslRuns).map { $0.rate(wall: wall) / $1 * 100 }
            let median = ratios.sorted()[ratios.count / 2]
            print("      per round: \(ratios.map { format($0, decimals: 1) + "%" }.joined(separator: ", ")) (median \(format(median, decimals: 1))%)")
        }
    }
}
