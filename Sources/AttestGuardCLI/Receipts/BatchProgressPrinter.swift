import AttestGuardEngine
import Foundation
import AttestGuardStore
import Synchronization

/// Shows a batch's progress on stderr: a redrawn bar with done/total, rate and ETA on a terminal; otherwise a
/// log line every `logEvery`, so cron mail and log collectors get a few lines rather than thousands.
final class BatchProgressPrinter: Sendable {
    private struct State {
        var total = 0
        var settled = 0
        var report = ReceiptBatchReport()
        var lastPrint: ContinuousClock.Instant?
    }

    private let state = Mutex(State())
    private let started = ContinuousClock.now
    private let isTerminal = isatty(STDERR_FILENO) == 1
    private let logEvery: Duration

    init(logEvery: Duration) {
        self.logEvery = logEvery
    }

    var elapsed: Duration { ContinuousClock.now - started }

    func begin(total: Int) {
        state.withLock { $0.total = total }
        write(line(settled: 0, total: total, report: ReceiptBatchReport()))
    }

    func update(_ progress: ReceiptRefreshScheduler.Progress) {
        let now = ContinuousClock.now
        let text: String? = state.withLock { state in
            state.settled = max(state.settled, progress.settled)
            state.report = progress.report
            state.total = max(state.total, state.settled)
            let interval = isTerminal ? Duration.milliseconds(200) : logEvery
            if let last = state.lastPrint, now - last < interval { return nil }
            state.lastPrint = now
            return line(settled: state.settled, total: state.total, report: state.report)
        }
        if let text { write(text) }
    }

    func finish() {
        let text = state.withLock { line(settled: $0.settled, total: max($0.total, $0.settled), report: $0.report) }
        write(text)
        if isTerminal { FileHandle.standardError.write(Data("\n".utf8)) }
    }

    private func line(settled: Int, total: Int, report: ReceiptBatchReport) -> String {
        let seconds = max(elapsed.timeInterval, 0.001)
        let rate = Double(settled) / seconds
        let remaining = max(0, total - settled)
        let eta = rate > 0 ? "\(Int((Double(remaining) / rate).rounded(.up)))s" : "?"
        let counts = "redeemed \(report.redeemed), retries \(report.retries), gave up \(report.gaveUp), failed \(report.failed)"
        guard isTerminal else {
            return "receipts refresh: \(settled)/\(total) done, \(Int(rate))/s, ETA \(eta), \(counts)\n"
        }
        let width = 30
        let filled = total > 0 ? min(width, settled * width / total) : width
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
        return "\r[\(bar)] \(settled)/\(total) \(Int(rate))/s ETA \(eta) (\(counts))\u{1B}[K"
    }

    private func write(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}
