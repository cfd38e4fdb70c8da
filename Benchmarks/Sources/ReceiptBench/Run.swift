import AppleReceipts
import AppleServices
import FakeApple
import AsyncHTTPClient
import AttestCore
import AttestGuardEngine
import Foundation
import NIOCore
import AttestGuardStore
import Synchronization

/// `run`: restores the prepared ATTEST receipts (all due), then one unthrottled `ReceiptRefreshScheduler.runBatch`
/// against the fake Apple over loopback, on the system clock; prints the rate, RSS along the way and where the
/// CPU went, and checks the outcome (report, fake's counters, SQL).
enum RunBench {
    /// What the progress callback records: instants and RSS when the batch passes 10, 25, 50, 75 and 90%.
    final class Milestones: Sendable {
        struct Mark: Sendable {
            var percent: Int
            var at: ContinuousClock.Instant
            var rss: Double
        }

        let thresholds: [(Int, Int)]
        let marks = Mutex<[Mark]>([])

        init(total: Int) {
            thresholds = [10, 25, 50, 75, 90].map { ($0, max(1, total * $0 / 100)) }
        }

        func settled(_ count: Int) {
            guard let hit = thresholds.first(where: { $0.1 == count }) else { return }
            let mark = Mark(percent: hit.0, at: .now, rss: ProcStats.memory("VmRSS"))
            marks.withLock { $0.append(mark) }
        }
    }

    static func run(_ options: Options) async throws {
        let concurrency = max(1, options.int("concurrency", 32))
        let leaseBatch = max(1, options.int("lease-batch", 64))
        let pool = max(1, options.int("pool", 16))
        let httpConnections = options.int("http-connections", 0)
        let fakeInProcess = options.string("fake") == "inprocess"
        let postmaster = options.string("postgres-pid").flatMap { Int32($0) }

        let handle = try StoreHandle.open(url: options.databaseURL, connections: pool)
        defer { handle.close() }
        // Restore the prepared receipts: every key due again with its ATTEST receipt, no history.
        let resetStarted = ContinuousClock.now
        try await handle.execute("TRUNCATE risk_metric_history, receipts")
        try await handle.execute("INSERT INTO receipts SELECT * FROM bench_seed_receipts")
        try await handle.execute("VACUUM ANALYZE receipts")
        try await handle.execute("VACUUM ANALYZE risk_metric_history")
        let keys = try await handle.count("SELECT count(*) FROM receipts WHERE receipt_type = 'ATTEST' AND next_refresh_at <= now()")
        guard keys > 0 else { Bench.fail("nothing prepared: run `ReceiptBench prepare` first") }
        let resetSeconds = (ContinuousClock.now - resetStarted).seconds

        let settings = ReceiptRefreshSettings(
            concurrency: concurrency,
            leaseBatchSize: leaseBatch,
            requestsPerSecond: [.development: 0, .production: 0]
        )
        let httpClient: HTTPClient
        if httpConnections > 0 {
            var configuration = HTTPClient.Configuration()
            configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: httpConnections)
            httpClient = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        } else {
            httpClient = HTTPClient.shared
        }
        let credentials = try Bench.credentials()

        let body: @Sendable (Int, Int32?, (@Sendable () async throws -> FakeAppleStats)) async throws -> Void = { port, fakePid, fakeStats in
            let client = ReceiptRedemptionClient(
                tokens: ProviderTokenSource(credentials: credentials),
                httpClient: httpClient,
                configuration: .init(baseURL: "http://127.0.0.1:\(port)", timeout: .seconds(30))
            )
            let scheduler = ReceiptRefreshScheduler(
                store: handle.store,
                redeemer: client,
                verifier: ReceiptVerifier(trustRoots: Bench.pki.receiptTrustRoots),
                settings: settings,
                clock: SystemClock(),
                logger: Bench.quietLogger
            )
            let milestones = Milestones(total: keys)
            let rssBefore = ProcStats.memory("VmRSS")
            let samples = Locked<[Double]>([])
            let sampler = Task {
                while !Task.isCancelled {
                    let rss = ProcStats.memory("VmRSS")
                    samples.withLock { $0.append(rss) }
                    try? await Task.sleep(for: .milliseconds(250))
                }
            }
            // Reset the peak (VmHWM) to the current RSS, so that it covers the batch only, not the setup.
            let peakReset = (try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)) != nil
            let before = CPUSnapshot.take(fakePid: fakePid, postmaster: postmaster)
            let report = try await scheduler.runBatch { progress in milestones.settled(progress.settled) }
            let after = CPUSnapshot.take(fakePid: fakePid, postmaster: postmaster)
            sampler.cancel()
            let rssAfter = ProcStats.memory("VmRSS")
            // Read before the checks: decoding the fake's /fake/stats (one entry per token) is not the batch's memory.
            let peak = ProcStats.memory("VmHWM")
            let fakePeak = fakePid.map { ProcStats.peakRSS(of: $0) } ?? 0
            let usage = before.usage(until: after)
            let stats = try await fakeStats()

            // ---- checks: nothing may pass as a fast success ----
            var problems: [String] = []
            if report.redeemed != keys { problems.append("report.redeemed \(report.redeemed) != \(keys)") }
            if !report.isClean || report.leaseLost != 0 || report.keptNewer != 0 || report.keyInactive != 0 || report.noData != 0
                || report.notModified != 0
            {
                problems.append("report not clean: \(report)")
            }
            if stats.redeemed != keys { problems.append("the fake answered 200 \(stats.redeemed) times, expected \(keys)") }
            let history = try await handle.count("SELECT count(*) FROM risk_metric_history")
            let historyExpected = try await handle.count(
                "SELECT count(*) FROM risk_metric_history WHERE risk_metric = \(Bench.expectedRiskMetric)"
            )
            let receipts = try await handle.count(
                """
                SELECT count(*) FROM receipts WHERE receipt_type = 'RECEIPT' AND risk_metric = \(Bench.expectedRiskMetric)
                  AND last_outcome = 'redeemed' AND lease_owner IS NULL AND next_refresh_at > now()
                """
            )
            let total = try await handle.count("SELECT count(*) FROM receipts")
            let distinct = try await handle.count("SELECT count(DISTINCT (app_id, key_id)) FROM risk_metric_history")
            if history != keys || historyExpected != keys || distinct != keys {
                problems.append("risk_metric_history has \(history) rows (\(historyExpected) with metric \(Bench.expectedRiskMetric), \(distinct) keys), expected \(keys)")
            }
            if receipts != keys || total != keys { problems.append("\(receipts) of \(total) receipts are redeemed RECEIPTs, expected \(keys)") }

            // ---- report ----
            let seconds = usage.seconds
            let marks = milestones.marks.withLock { $0 }.sorted { $0.percent < $1.percent }
            let steady: Double? = {
                guard let first = marks.first(where: { $0.percent == 10 }), let last = marks.first(where: { $0.percent == 90 }) else { return nil }
                return Double(keys * 80 / 100) / (last.at - first.at).seconds
            }()
            let sampled = samples.withLock { $0 }
            let fakeMode = fakeInProcess ? "in this process (its CPU is in the bench column)" : "separate process (pid \(fakePid ?? 0))"
            let httpMode = httpConnections > 0 ? "own HTTPClient, \(httpConnections) connections per host" : "HTTPClient.shared (8 connections per host)"
            let perReceipt = { (cpu: Double) in formatted(cpu / Double(keys) * 1e6) }
            print("""
                ReceiptBench run: \(keys) keys due, unthrottled (requestsPerSecond 0), concurrency \(concurrency), leaseBatchSize \(leaseBatch), \
                PostgreSQL pool \(pool), \(httpMode); fake Apple \(fakeMode); restore of the prepared receipts \(formatted(resetSeconds, 1)) s (not timed)

                | receipt batch                                   |          value |
                |-------------------------------------------------|---------------:|
                | keys (due ATTEST receipts)                      | \(pad(String(keys), 14)) |
                | wall seconds (runBatch, to the empty backlog)   | \(pad(formatted(seconds, 2), 14)) |
                | receipts redeemed per second                    | \(pad(formatted(Double(report.redeemed) / seconds), 14)) |
                | steady rate, 10% -> 90% of the batch            | \(pad(steady.map { formatted($0) } ?? "-", 14)) |
                | redeemed / retries / gave up / failed / lost    | \(pad("\(report.redeemed)/\(report.retries)/\(report.gaveUp)/\(report.failed)/\(report.leaseLost)", 14)) |
                | peak RSS of the bench process during the batch  | \(pad(formatted(peak, 1) + (peakReset ? "" : "*"), 14)) |
                | RSS before / after the batch, MiB               | \(pad("\(formatted(rssBefore, 1)) / \(formatted(rssAfter, 1))", 14)) |
                | RSS at 10/25/50/75/90% of the batch, MiB        | \(pad(marks.map { formatted($0.rss, 0) }.joined(separator: "/"), 14)) |
                | RSS sampled every 250 ms: min / max, MiB        | \(pad("\(formatted(sampled.min() ?? 0, 1)) / \(formatted(sampled.max() ?? 0, 1))", 14)) |
                | fake Apple process peak RSS, MiB                | \(pad(fakeInProcess ? "(in bench)" : formatted(fakePeak, 1), 14)) |

                CPU during the batch (seconds, and microseconds per redeemed receipt):
                | process                                         |   CPU s | us/receipt | cores |
                |-------------------------------------------------|--------:|-----------:|------:|
                | bench: scheduler, HTTP client, verifier\(fakeInProcess ? ", fake " : "       ") | \(pad(formatted(usage.bench, 1), 7)) | \(pad(perReceipt(usage.bench), 10)) | \(pad(formatted(usage.bench / seconds, 2), 5)) |
                | fake Apple (JWT check, parse, mint + sign)      | \(pad(fakeInProcess ? "-" : formatted(usage.fake, 1), 7)) | \(pad(fakeInProcess ? "-" : perReceipt(usage.fake), 10)) | \(pad(fakeInProcess ? "-" : formatted(usage.fake / seconds, 2), 5)) |
                | PostgreSQL (postmaster and backends)            | \(pad(postmaster == nil ? "-" : formatted(usage.postgres, 1), 7)) | \(pad(postmaster == nil ? "-" : perReceipt(usage.postgres), 10)) | \(pad(postmaster == nil ? "-" : formatted(usage.postgres / seconds, 2), 5)) |
                | everything else on the machine                  | \(pad(formatted(usage.other, 1), 7)) | \(pad(perReceipt(usage.other), 10)) | \(pad(formatted(usage.other / seconds, 2), 5)) |
                | stolen by the hypervisor                        | \(pad(formatted(usage.steal, 1), 7)) | \(pad(perReceipt(usage.steal), 10)) | \(pad(formatted(usage.steal / seconds, 2), 5)) |
                | machine busy (all \(ProcessInfo.processInfo.activeProcessorCount) cores)                          | \(pad(formatted(usage.machine, 1), 7)) | \(pad(perReceipt(usage.machine), 10)) | \(pad(formatted(usage.machine / seconds, 2), 5)) |

                checks: report, fake counters (\(stats.redeemed) answered 200 of \(stats.redemptionRequests) requests), \
                SQL: \(history) risk_metric_history rows (\(historyExpected) with metric \(Bench.expectedRiskMetric)), \(receipts) of \(total) receipts are redeemed RECEIPTs
                """)
            print("RESULT keys=\(keys) concurrency=\(concurrency) seconds=\(formatted(seconds, 2)) rate=\(formatted(Double(report.redeemed) / seconds)) "
                + "steady=\(steady.map { formatted($0) } ?? "-") peak_rss_mib=\(formatted(peak, 1)) rss=\(marks.map { formatted($0.rss, 0) }.joined(separator: "/")) "
                + "cpu_bench_us=\(perReceipt(usage.bench)) cpu_fake_us=\(fakeInProcess ? "-" : perReceipt(usage.fake)) "
                + "cpu_pg_us=\(postmaster == nil ? "-" : perReceipt(usage.postgres)) machine_cores=\(formatted(usage.machine / seconds, 2)) ok=\(problems.isEmpty)")
            if !problems.isEmpty {
                Bench.fail("INVALID run:\n  " + problems.joined(separator: "\n  "))
            }
        }

        if fakeInProcess {
            let fake = try FakeAppleServer(configuration: try Fake.configuration(), logger: Bench.quietLogger)
            try await fake.withRunning { port in
                try await body(port, nil) { fake.state.stats }
            }
        } else {
            let child = Fake.Child()
            let port = try await child.start()
            defer { child.stop() }
            try await body(port, child.pid) {
                let response = try await httpClient.execute(HTTPClientRequest(url: "http://127.0.0.1:\(port)/fake/stats"), timeout: .seconds(30))
                let bytes = try await response.body.collect(upTo: 1 << 28)
                return try JSONDecoder().decode(FakeAppleStats.self, from: Data(bytes.readableBytesView))
            }
        }
        if httpConnections > 0 { try await httpClient.shutdown() }
    }
}
