import Foundation

// ReceiptBench: the receipt batch benchmark. `Benchmarks/receipts.sh` is the one command; see Benchmarks/README.md.
//   ReceiptBench prepare   --url URL [--keys 100000] [--workers 2]
//   ReceiptBench run       --url URL [--concurrency 32] [--lease-batch 64] [--pool 16] [--http-connections N]
//                          [--fake process|inprocess] [--postgres-pid PID]
//   ReceiptBench breakdown --url URL [--ops 4000] [--concurrency 32] [--lease-batch 64] [--pool 16] [--postgres-pid PID]
//   ReceiptBench fake      (a fake Apple on a free loopback port; prints `port N`; exits when stdin closes)
// The URL may also come from ATTESTGUARD_BENCH_DATABASE_URL.
let options = Options(Array(CommandLine.arguments.dropFirst()))
switch options.command {
case "prepare": try await Prepare.run(options)
case "run": try await RunBench.run(options)
case "breakdown": try await Breakdown.run(options)
case "fake": try await Fake.serve()
case "help":
    print("""
        usage: ReceiptBench prepare   --url URL [--keys 100000] [--workers N]
               ReceiptBench run       --url URL [--concurrency 32] [--lease-batch 64] [--pool 16] [--http-connections N]
                                      [--fake process|inprocess] [--postgres-pid PID]
               ReceiptBench breakdown --url URL [--ops 4000] [--concurrency 32] [--lease-batch 64] [--pool 16] [--postgres-pid PID]
               ReceiptBench fake
        The URL may come from ATTESTGUARD_BENCH_DATABASE_URL. Usually run through Benchmarks/receipts.sh; see Benchmarks/README.md.
        """)
default: Bench.fail("unknown command \(options.command)")
}
