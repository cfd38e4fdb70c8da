import AppleReceipts
import AppleServices
import DeviceSimulator
import AsyncHTTPClient
import AttestCore
import Foundation
import PostgresNIO
import AttestGuardStore
import Synchronization

/// `breakdown`: runs each phase of one redemption in isolation over the same K prepared keys and measures the CPU
/// each costs per receipt, in this process, the fake Apple's process and PostgreSQL:
///   1. the fake's parse + mint + sign of a RECEIPT (in this process, one task: the fake's share without HTTP),
///   2. `ReceiptVerifier.verify` of those RECEIPTs (CMS signature + chain + fields), on as many tasks as cores,
///   3. `ReceiptRedemptionClient.redeem` over loopback against the fake in its own process, C at a time,
///   4. the store: `leaseDueReceipts` (batches of the lease size) + `replaceReceipt` per receipt, C at a time.
enum Breakdown {
    struct Row {
        var phase: String
        var ops: Int
        var usage: CPUUsage
    }

    static func run(_ options: Options) async throws {
        let count = max(1, options.int("ops", 4_000))
        let concurrency = max(1, options.int("concurrency", 32))
        let leaseBatch = max(1, options.int("lease-batch", 64))
        let pool = max(1, options.int("pool", 16))
        let postmaster = options.string("postgres-pid").flatMap { Int32($0) }
        let cores = ProcessInfo.processInfo.activeProcessorCount

        let handle = try StoreHandle.open(url: options.databaseURL, connections: pool)
        defer { handle.close() }
        try await handle.execute("TRUNCATE risk_metric_history, receipts")
        try await handle.execute("INSERT INTO receipts SELECT * FROM bench_seed_receipts")
        // Only the first K keys (by key id) stay due, so that the store phase leases exactly the keys measured.
        let selected = try await handle.store.client().query(
            "SELECT r.key_id, k.public_key, r.receipt FROM bench_seed_receipts r JOIN app_keys k USING (app_id, key_id) ORDER BY r.key_id LIMIT \(count)",
            logger: Bench.quietLogger
        ).collect().map { row in try row.decode((Data, Data, Data).self) }
        guard selected.count == count, let last = selected.last?.0 else { Bench.fail("only \(selected.count) keys prepared, --ops \(count)") }
        try await handle.store.client().query(
            "UPDATE receipts SET next_refresh_at = next_refresh_at + interval '365 days' WHERE key_id > \(last)",
            logger: Bench.quietLogger
        )
        try await handle.execute("VACUUM ANALYZE receipts")
        var rows: [Row] = []
        let pki = Bench.pki
        let now = Date()

        // 1. The fake's work per redemption without HTTP and JWT: parse the ATTEST receipt, mint and sign the RECEIPT.
        var start = CPUSnapshot.take(fakePid: nil, postmaster: postmaster)
        let issuer = SimulatedReceiptIssuer(pki: pki)
        var minted: [[UInt8]] = []
        minted.reserveCapacity(count)
        for (_, _, receipt) in selected {
            let envelope = try ReceiptEnvelope(Array(receipt))
            let parsed = try Receipt(payload: envelope.content)
            minted.append(issuer.refresh(parsed, riskMetric: Bench.expectedRiskMetric, at: now))
        }
        rows.append(Row(phase: "fake: parse ATTEST + mint/sign RECEIPT (1 task)", ops: count, usage: start.usage(until: .take(fakePid: nil, postmaster: postmaster))))

        // 2. Verification, on every core.
        let verifier = ReceiptVerifier(trustRoots: pki.receiptTrustRoots)
        let work = Array(zip(selected.map(\.1), minted))
        start = CPUSnapshot.take(fakePid: nil, postmaster: postmaster)
        let invalid = try await withThrowingTaskGroup(of: Int.self) { group in
            for worker in 0..<cores {
                group.addTask {
                    var invalid = 0
                    for index in stride(from: worker, to: work.count, by: cores) {
                        let (publicKey, bytes) = work[index]
                        let expectation = ReceiptExpectation(appId: Bench.app.appId, publicKeyX963: Array(publicKey), type: .receipt, maximumAge: 300)
                        if case .invalid = await verifier.verify(bytes, expecting: expectation, at: now) { invalid += 1 }
                    }
                    return invalid
                }
            }
            return try await group.reduce(0, +)
        }
        rows.append(Row(phase: "verify: ReceiptVerifier (\(cores) tasks)", ops: count, usage: start.usage(until: .take(fakePid: nil, postmaster: postmaster))))
        guard invalid == 0 else { Bench.fail("\(invalid) minted receipts did not verify") }

        // 3. The HTTP round trip to the fake Apple in its own process.
        let child = Fake.Child()
        let port = try await child.start()
        defer { child.stop() }
        let client = ReceiptRedemptionClient(
            tokens: ProviderTokenSource(credentials: try Bench.credentials()),
            configuration: .init(baseURL: "http://127.0.0.1:\(port)", timeout: .seconds(30))
        )
        _ = await client.redeem(Array(selected[0].2), environment: .development)  // connection + token warm-up
        let receipts = selected.map { Array($0.2) }
        let next = Locked(0)
        start = CPUSnapshot.take(fakePid: child.pid, postmaster: postmaster)
        let failures = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<concurrency {
                group.addTask {
                    var failures = 0
                    while true {
                        let index = next.withLock { value in defer { value += 1 }; return value }
                        guard index < receipts.count else { break }
                        if case .redeemed = await client.redeem(receipts[index], environment: .development) {} else { failures += 1 }
                    }
                    return failures
                }
            }
            return try await group.reduce(0, +)
        }
        rows.append(Row(phase: "redeem: HTTP to the fake (\(concurrency) tasks, shared client)", ops: count, usage: start.usage(until: .take(fakePid: child.pid, postmaster: postmaster))))
        guard failures == 0 else { Bench.fail("\(failures) redemptions failed") }

        // 4. The store: lease in batches, replace each receipt (history row + receipt row, one transaction).
        let byKey = Dictionary(uniqueKeysWithValues: zip(selected.map(\.0), minted))
        let store = handle.store
        let owner = "breakdown"
        start = CPUSnapshot.take(fakePid: nil, postmaster: postmaster)
        let stored = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<concurrency {
                group.addTask {
                    var stored = 0
                    while true {
                        let leases = try await store.leaseDueReceipts(
                            ReceiptLeaseRequest(owner: owner, now: Date(), duration: .seconds(120), limit: leaseBatch)
                        )
                        if leases.isEmpty { break }
                        for lease in leases {
                            guard let bytes = byKey[lease.keyId] else { continue }
                            let record = ReceiptRecord(
                                appId: lease.appId, keyId: lease.keyId, receiptType: .receipt, receipt: Data(bytes), createdAt: now,
                                notBefore: now.addingTimeInterval(86_400), expiresAt: now.addingTimeInterval(90 * 86_400),
                                riskMetric: Bench.expectedRiskMetric, storedAt: now, nextRefreshAt: now.addingTimeInterval(86_401)
                            )
                            if case .replaced = try await store.replaceReceipt(ReceiptReplacement(receipt: record, leaseOwner: owner, observedAt: now)) {
                                stored += 1
                            }
                        }
                    }
                    return stored
                }
            }
            return try await group.reduce(0, +)
        }
        rows.append(Row(phase: "store: lease + replaceReceipt (\(concurrency) tasks, pool \(pool))", ops: count, usage: start.usage(until: .take(fakePid: nil, postmaster: postmaster))))
        guard stored == count else { Bench.fail("stored \(stored) receipts, expected \(count)") }
        try await handle.execute("TRUNCATE risk_metric_history, receipts")
        try await handle.execute("INSERT INTO receipts SELECT * FROM bench_seed_receipts")

        // ---- report ----
        print("""
            ReceiptBench breakdown: \(count) receipts per phase, \(cores) cores; CPU microseconds per receipt by process \
            (bench = this process; fake = the fake Apple's process; pg = PostgreSQL), and the phase's wall rate

            | phase                                                      | bench us | fake us | pg us | total us | wall ops/s | ceiling on \(cores) cores |
            |------------------------------------------------------------|---------:|--------:|------:|---------:|-----------:|-----------------:|
            """)
        func perOp(_ seconds: Double, _ ops: Int) -> Double { seconds / Double(ops) * 1e6 }
        var totals = (bench: 0.0, fake: 0.0, pg: 0.0)
        for row in rows {
            let bench = perOp(row.usage.bench, row.ops)
            let fake = perOp(row.usage.fake, row.ops)
            let pg = postmaster == nil ? 0 : perOp(row.usage.postgres, row.ops)
            let total = bench + fake + pg
            if !row.phase.hasPrefix("fake:") {  // the fake's parse + mint is inside the fake's CPU of the redeem phase
                totals.bench += bench
                totals.fake += fake
                totals.pg += pg
            }
            print("| \(pad(row.phase, 58, right: false)) | \(pad(formatted(bench), 8)) | \(pad(formatted(fake), 7)) | \(pad(formatted(pg), 5)) | "
                + "\(pad(formatted(total), 8)) | \(pad(formatted(Double(row.ops) / row.usage.seconds), 10)) | \(pad(formatted(Double(cores) * 1e6 / total), 16)) |")
        }
        let total = totals.bench + totals.fake + totals.pg
        print("| \(pad("sum of verify + redeem + store (one redemption)", 58, right: false)) | \(pad(formatted(totals.bench), 8)) | \(pad(formatted(totals.fake), 7)) | "
            + "\(pad(formatted(totals.pg), 5)) | \(pad(formatted(total), 8)) | \(pad("-", 10)) | \(pad(formatted(Double(cores) * 1e6 / total), 16)) |")
        print("\nceiling = \(cores) cores x 1e6 / total CPU us per receipt (every core busy, no idle, no other load)")
        print("BREAKDOWN " + rows.map { row in
            "\(row.phase.split(separator: ":").first ?? "")=\(formatted(perOp(row.usage.bench + row.usage.fake + (postmaster == nil ? 0 : row.usage.postgres), row.ops)))"
        }.joined(separator: " ") + " total_us=\(formatted(total)) ceiling=\(formatted(Double(cores) * 1e6 / total))")
    }
}
