// AttestGuard benchmarks: single-core verification throughput on real Apple App Attest objects.
//
// Run through `Benchmarks/run.sh` (release build, pinned to one core, openssl reference).
// Options: --seconds S (per run, default 3), --runs N (default 3, best is reported), --warmup S (default 1),
//          --fixtures DIR, --openssl-verify X (openssl's P-256 verify/s, for the ratio),
//          --only NAME[,NAME] (assertion, attestation, receipt, p256, breakdown), --breakdown,
//          --assertion-loop S (only run the assertion loop for S seconds, for profilers).

import AppleReceipts
import AttestCore
import Crypto
import Dispatch
import Foundation

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
    var opensslVerify: Double?
    var only: Set<String>?
    var breakdown = false
    var assertionLoop: Double?

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
            case "--openssl-verify": options.opensslVerify = number(argument)
            case "--only": options.only = Set(value(argument).split(separator: ",").map(String.init))
            case "--breakdown": options.breakdown = true
            case "--assertion-loop": options.assertionLoop = number(argument)
            case "-h", "--help":
                print("usage: AttestBench [--seconds S] [--runs N] [--warmup S] [--fixtures DIR] [--openssl-verify X] [--only LIST] [--breakdown] [--assertion-loop S]")
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
        precondition(ISO8601DateFormatter().date(from: "2024-01-27T16:15:40Z") == instant)
    }

    var attestationRequest: AttestationRequest {
        AttestationRequest(keyId: keyId, app: app, allowedEnvironments: [.development], clientData: .challenge(challenge))
    }
}

// MARK: - Measurement

@inline(__always) func nanoseconds() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

struct Measurement {
    let name: String
    /// ops/s of each timed run.
    let runs: [Double]
    var best: Double { runs.max() ?? 0 }
    var nsPerOp: Double { 1e9 / best }
}

/// Time-based loop: a warm-up that also sizes batches (~10 ms each, so the clock is read rarely),
/// then `runs` runs of at least `seconds` each; ops/s of each run.
func measure(_ name: String, _ options: Options, _ body: () -> Void) -> Measurement {
    let warmupEnd = nanoseconds() + UInt64(options.warmup * 1e9)
    let warmupStart = nanoseconds()
    var warmupCount = 0
    repeat { body(); warmupCount += 1 } while nanoseconds() < warmupEnd
    let rate = Double(warmupCount) / (Double(nanoseconds() - warmupStart) / 1e9)
    let batch = max(1, Int(rate / 100))
    var runs: [Double] = []
    for _ in 0..<options.runs {
        var count = 0
        let start = nanoseconds()
        let duration = UInt64(options.seconds * 1e9)
        var elapsed: UInt64 = 0
        repeat {
            for _ in 0..<batch { body() }
            count += batch
            elapsed = nanoseconds() - start
        } while elapsed < duration
        runs.append(Double(count) / (Double(elapsed) / 1e9))
    }
    report(name, runs)
    return Measurement(name: name, runs: runs)
}

/// The same loop for async bodies, awaited one after the other on a single task.
func measureAsync(_ name: String, _ options: Options, _ body: () async -> Void) async -> Measurement {
    let warmupEnd = nanoseconds() + UInt64(options.warmup * 1e9)
    let warmupStart = nanoseconds()
    var warmupCount = 0
    repeat { await body(); warmupCount += 1 } while nanoseconds() < warmupEnd
    let rate = Double(warmupCount) / (Double(nanoseconds() - warmupStart) / 1e9)
    let batch = max(1, Int(rate / 100))
    var runs: [Double] = []
    for _ in 0..<options.runs {
        var count = 0
        let start = nanoseconds()
        let duration = UInt64(options.seconds * 1e9)
        var elapsed: UInt64 = 0
        repeat {
            for _ in 0..<batch { await body() }
            count += batch
            elapsed = nanoseconds() - start
        } while elapsed < duration
        runs.append(Double(count) / (Double(elapsed) / 1e9))
    }
    report(name, runs)
    return Measurement(name: name, runs: runs)
}

func report(_ name: String, _ runs: [Double]) {
    let list = runs.map { format($0, decimals: 0) }.joined(separator: ", ")
    print("  \(pad(name, 44)) runs (ops/s): \(list)")
}

func format(_ value: Double, decimals: Int) -> String { String(format: "%.\(decimals)f", value) }
func pad(_ text: String, _ width: Int) -> String { text.count >= width ? text : text + String(repeating: " ", count: width - text.count) }
func padLeft(_ text: String, _ width: Int) -> String { text.count >= width ? text : String(repeating: " ", count: width - text.count) + text }

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

        print("AttestGuard benchmarks — \(options.runs) runs of >= \(format(options.seconds, decimals: 1)) s each after \(format(options.warmup, decimals: 1)) s warm-up; best run reported")
        print("fixtures: \(options.fixtures)")
        var results: [Measurement] = []

        if options.wants("assertion") {
            results.append(measure("assertion verify (AssertionVerifier)", options) {
                checkAssertion(assertionVerifier.verify(
                    fixtures.assertion, publicKey: fixtures.publicKey, app: fixtures.app,
                    clientData: fixtures.clientData, previousCounter: 0))
            })
        }
        if options.wants("p256") {
            results.append(measure("swift-crypto P256 isValidSignature(for: Data)", options) {
                guard fixtures.publicKey.isValidSignature(signature, for: nonce) else { fail("raw P-256 check failed") }
            })
        }
        if options.wants("attestation") {
            results.append(await measureAsync("attestation verify (AttestationVerifier)", options) {
                checkAttestation(await attestationVerifier.verify(fixtures.attestation, request: request, at: fixtures.instant))
            })
        }
        if options.wants("receipt") {
            results.append(await measureAsync("receipt verify (ReceiptVerifier)", options) {
                checkReceipt(await receiptVerifier.verify(fixtures.receipt, expecting: receiptExpectation, at: fixtures.instant))
            })
        }
        if options.wants("breakdown") {
            // The steps of AssertionVerifier.verify, one at a time, to see where its time goes.
            results.append(measure("  step: AssertionObject(cbor:) (CBOR decode)", options) {
                guard (try? AssertionObject(cbor: fixtures.assertion)) != nil else { fail("decode failed") }
            })
            results.append(measure("  step: ECDSASignature(derRepresentation:)", options) {
                guard (try? P256.Signing.ECDSASignature(derRepresentation: object.signature)) != nil else { fail("DER parse failed") }
            })
            results.append(measure("  step: clientDataHash + nonce (2 x SHA-256)", options) {
                let hash = SHA256.hash(data: fixtures.clientData)
                var hasher = SHA256()
                hasher.update(data: object.authenticatorData)
                hasher.update(data: Array(hash))
                guard Array(hasher.finalize()).count == 32 else { fail("hash") }
            })
            results.append(measure("  step: P256 isValidSignature(for: digest)", options) {
                guard fixtures.publicKey.isValidSignature(signature, for: nonceDigest) else { fail("raw P-256 check failed") }
            })
        }

        printTable(results, options: options)
    }

    static func printTable(_ results: [Measurement], options: Options) {
        print("")
        print("| \(pad("measurement (single core)", 46)) | \(padLeft("ops/s", 10)) | \(padLeft("ns/op", 10)) |")
        print("|\(String(repeating: "-", count: 48))|\(String(repeating: "-", count: 11)):|\(String(repeating: "-", count: 11)):|")
        for result in results {
            print("| \(pad(result.name, 46)) | \(padLeft(format(result.best, decimals: 0), 10)) | \(padLeft(format(result.nsPerOp, decimals: 0), 10)) |")
        }
        if let openssl = options.opensslVerify {
            print("| \(pad("openssl speed ecdsap256 verify", 46)) | \(padLeft(format(openssl, decimals: 0), 10)) | \(padLeft(format(1e9 / openssl, decimals: 0), 10)) |")
        }
        let assertion = results.first { $0.name.hasPrefix("assertion") }?.best
        let raw = results.first { $0.name.hasPrefix("swift-crypto") }?.best
        print("")
        if let assertion, let openssl = options.opensslVerify {
            let ratio = assertion / openssl * 100
            print("ratio assertion verify/s ÷ openssl verify/s: \(format(ratio, decimals: 1))%  (goal >= 80%: \(ratio >= 80 ? "MET" : "NOT MET"))")
        }
        if let raw, let openssl = options.opensslVerify {
            print("ratio swift-crypto P256 verify/s ÷ openssl verify/s: \(format(raw / openssl * 100, decimals: 1))%")
        }
        if let assertion, let raw {
            print("ratio assertion verify/s ÷ swift-crypto P256 verify/s: \(format(assertion / raw * 100, decimals: 1))%")
        }
    }
}
