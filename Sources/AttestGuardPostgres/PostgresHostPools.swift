import EventLoopConcurrency
import Logging
import NIOPosix
import PostgresNIO
import Synchronization
import AttestGuardStore

/// The connection pools of the host that serves the store now, among the URL's hosts, and the search for it.
///
/// A search asks the hosts in the URL's order, each over one connection (`pg_is_in_recovery()`,
/// `transaction_read_only`), and the first that qualifies (``PostgresTargetSession``) gets pools
/// (``LoopAffinePostgresPools``). An operation that fails the way a lost, restarting or read-only server fails reports
/// it (``suspect(_:because:)``); the serving host is asked again, and when it no longer answers or qualifies, its pools
/// are shut down and the search starts over, with back-off, until a host qualifies. Until one does, every operation
/// fails at once with ``StoreError/Code/unavailable``: the store fails closed, and nothing waits on a dead host.
final class PostgresHostPools: Sendable {
    /// The host that serves and its pools. `generation` tells a report about these pools from one about earlier ones.
    struct Serving: Sendable {
        let host: PostgresURL.Host
        let pools: LoopAffinePostgresPools
        let generation: Int
    }

    private enum Phase {
        /// The first search has not finished.
        case starting
        case serving(Serving)
        /// No host qualifies; why, host by host.
        case searching(reason: String)
        case stopped
    }

    /// The first search's back-off, doubled after each failed search up to the last.
    static let backOff: ClosedRange<Duration> = .milliseconds(100)...(.seconds(2))
    /// How often the watch connection asks the serving host whether it still qualifies.
    static let watchInterval: Duration = .seconds(1)
    /// How long after a probe that found the serving host healthy further reports about it are let pass: one lost
    /// connection makes every operation on it fail at once, and one probe answers them all.
    static let probeQuietPeriod: Duration = .milliseconds(500)

    let configuration: PostgresStoreConfiguration
    /// Operations that ran past their deadline, and those abandoned (``withOperationDeadline``).
    let deadlines = StoreDeadlineCounts()
    private let logger: Logger
    private let standbyWaits = Mutex<Int?>(nil)
    private let phase = Mutex(Phase.starting)
    private let firstSearchDone = StartSignal()
    private let reports: AsyncStream<Int>
    private let reporter: AsyncStream<Int>.Continuation

    init(configuration: PostgresStoreConfiguration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
        (reports, reporter) = AsyncStream.makeStream(of: Int.self, bufferingPolicy: .bufferingNewest(4))
    }

    /// The pools to run an operation on: at once while a host serves; during the first search, once it ends. Throws
    /// ``StoreError/Code/unavailable`` while no host qualifies.
    func serving() async throws -> Serving {
        if let serving = try servingNow() { return serving }
        try await firstSearchDone.wait()
        guard let serving = try servingNow() else { throw StoreError(.unavailable, "the store is starting") }
        return serving
    }

    /// The serving host, `nil` before the first search ends, or ``StoreError/Code/unavailable``.
    func servingNow() throws -> Serving? {
        try phase.withLock { phase in
            switch phase {
            case .serving(let serving): return serving
            case .starting: return nil
            case .searching(let reason):
                throw StoreError(.unavailable, "no PostgreSQL host is \(configuration.targetSession.rawValue): \(reason)")
            case .stopped: throw StoreError(.unavailable, "the store is shut down")
            }
        }
    }

    /// Runs one operation on a pool of the serving host (the running loop's, or the next in turn) within `limit`
    /// (the operation timeout when `nil`), mapping driver failures to ``StoreError``; a failure that says the host may
    /// be gone or read-only has the host asked again.
    ///
    /// With `closingOnCancellation`, cancelling the caller also closes the connections the operation holds (which
    /// ends a wait for an answer that postgres-nio does not end on cancellation): for the store's own background
    /// work, which must not hold the store's shutdown. Requests' operations keep theirs, so that a commit under way
    /// is answered.
    func perform<Result: Sendable>(
        within limit: Duration? = nil,
        closingOnCancellation: Bool = false,
        _ operation: @escaping @Sendable (PostgresClient) async throws -> Result
    ) async throws -> Result {
        let connections = OperationConnections()
        guard closingOnCancellation else { return try await perform(within: limit, holding: connections, operation) }
        return try await withTaskCancellationHandler {
            try await perform(within: limit, holding: connections, operation)
        } onCancel: {
            connections.closeAll()
        }
    }

    /// ``perform(within:closingOnCancellation:_:)`` with the connections the operation leases
    /// (``PostgresClient/withHeldConnection(_:)``) noted in `connections`, which its deadline closes.
    private func perform<Result: Sendable>(
        within limit: Duration?,
        holding connections: OperationConnections,
        _ operation: @escaping @Sendable (PostgresClient) async throws -> Result
    ) async throws -> Result {
        let limit = limit ?? configuration.operationTimeout
        var serving: Serving?
        let deadlines = self.deadlines
        do {
            if let now = try servingNow() {
                serving = now
                let client = now.pools.current
                return try await withOperationDeadline(limit, closing: connections, counts: deadlines) {
                    try await OperationConnections.$current.withValue(connections) { try await operation(client) }
                }
            }
            // Only while the first search runs: the wait for it counts against the deadline.
            return try await withOperationDeadline(limit, closing: connections, counts: deadlines) {
                let client = try await self.serving().pools.current
                return try await OperationConnections.$current.withValue(connections) { try await operation(client) }
            }
        } catch {
            let (mapped, suspectsHost) = PostgresFailure.classify(error)
            if suspectsHost, let serving { suspect(serving.generation, because: String(describing: mapped)) }
            throw mapped
        }
    }

    /// Reports that an operation on the pools of `generation` failed the way a lost or read-only server fails.
    func suspect(_ generation: Int, because reason: String) {
        logger.debug("PostgreSQL operation failed; asking the host again", metadata: ["reason": .string(reason)])
        reporter.yield(generation)
    }

    /// Finds the serving host and keeps the choice current until the task is cancelled; then shuts the pools down.
    func run() async {
        var current: (serving: Serving, runner: Task<Void, Never>, watcher: Task<Void, Never>)?
        /// Pools of hosts that stopped serving, and their watchers, shutting down.
        var retiring: [Task<Void, Never>] = []
        var delay = Self.backOff.lowerBound
        var generation = 0
        var lastReason: String?
        var quietUntil = ContinuousClock.now
        var reports = self.reports.makeAsyncIterator()
        while !Task.isCancelled {
            if let active = current {
                // AsyncStream's iterator answers nil once the task is cancelled.
                guard let reported = await reports.next() else { break }
                guard reported == active.serving.generation, ContinuousClock.now >= quietUntil else { continue }
                let verdict = await qualify(active.serving.host)
                // A store stopping closes the probe's connection: that is no verdict on the host.
                if Task.isCancelled { break }
                var lostBecause: String?
                switch verdict {
                case .serves:
                    break
                case .lost(let reason):
                    lostBecause = reason
                case .uncertain(let reason):
                    // Overloaded or cut off: move only if another host qualifies now (a standby promoted while this
                    // one hangs); else stay, since its pool retries and a search would find nothing better.
                    if case .success(let other) = await search(), other != active.serving.host { lostBecause = reason }
                }
                if let reason = lostBecause {
                    logger.warning("PostgreSQL host no longer serves; searching again", metadata: [
                        "host": .stringConvertible(active.serving.host), "reason": .string(reason),
                    ])
                    phase.withLock { $0 = .searching(reason: reason) }
                    // The lost host's pools shut down beside the search, not before it: a pool's shutdown waits for
                    // its connections, and the search must not wait on a dead host.
                    active.watcher.cancel()
                    active.runner.cancel()
                    retiring.append(active.runner)
                    retiring.append(active.watcher)
                    current = nil
                    delay = Self.backOff.lowerBound
                } else {
                    quietUntil = .now + Self.probeQuietPeriod
                }
            } else {
                let found = await search()
                if Task.isCancelled { break }
                switch found {
                case .success(let host):
                    generation += 1
                    let pools = LoopAffinePostgresPools(configuration: configuration.clientConfiguration(for: host), logger: logger)
                    let started = StartSignal()
                    let runner = Task { await pools.run(onStarted: { started.open() }) }
                    guard (try? await started.wait()) != nil else {
                        runner.cancel()
                        await runner.value
                        break
                    }
                    let serving = Serving(host: host, pools: pools, generation: generation)
                    let watched = generation
                    current = (serving, runner, Task { await self.watch(host, generation: watched) })
                    phase.withLock { $0 = .serving(serving) }
                    firstSearchDone.open()
                    logger.info("PostgreSQL host serves", metadata: [
                        "host": .stringConvertible(host), "target": .string(configuration.targetSession.rawValue),
                    ])
                    lastReason = nil
                    delay = Self.backOff.lowerBound
                case .failure(let failure):
                    // Before any host has served, a host that is only busy keeps operations waiting (within their
                    // deadline) instead of failing them at once: a process starting beside many others may find
                    // PostgreSQL full for a moment.
                    let waiting = failure.busy && !firstSearchDone.isOpen
                    if !waiting {
                        phase.withLock { $0 = .searching(reason: failure.reason) }
                        firstSearchDone.open()
                    }
                    if failure.reason != lastReason {
                        logger.warning("no PostgreSQL host serves; retrying with back-off", metadata: ["reason": .string(failure.reason)])
                        lastReason = failure.reason
                    }
                    try? await Task.sleep(for: delay)
                    delay = min(delay * 2, Self.backOff.upperBound)
                }
            }
        }
        phase.withLock { $0 = .stopped }
        firstSearchDone.open()
        if let current {
            current.watcher.cancel()
            current.runner.cancel()
            retiring.append(current.runner)
            retiring.append(current.watcher)
        }
        // Bounded: a pool whose connections never finish must not hold the process's shutdown.
        for task in retiring { await Self.wait(for: task, atMost: Self.shutdownBound) }
    }

    /// How long shutdown waits for each set of pools to close.
    static let shutdownBound: Duration = .seconds(5)

    /// Keeps one connection to the serving host and asks over it, every ``watchInterval``, whether the host still
    /// qualifies; reports when the connection drops (at once: a killed host resets it), when an answer is late or
    /// says no. Without it a dead host would show only as operations that wait for a connection the pool cannot
    /// open, until their deadline.
    private func watch(_ host: PostgresURL.Host, generation: Int) async {
        // A store that lives less than an interval (a one-shot command, a probe) never opens it.
        try? await Task.sleep(for: Self.watchInterval)
        while !Task.isCancelled {
            let connection: PostgresConnection
            do {
                connection = try await connect(host)
            } catch {
                reporter.yield(generation)
                try? await Task.sleep(for: Self.watchInterval)
                continue
            }
            connection.closeFuture.whenComplete { _ in self.reporter.yield(generation) }
            do {
                while !Task.isCancelled {
                    // A host that stops answering without a reset would hold the probe forever: its deadline closes
                    // the connection, which ends the wait; so does the watcher's cancellation (the store stopping).
                    let answer = try await withTaskCancellationHandler {
                        try await withDeadline(
                            configuration.operationTimeout, abandoningAfter: operationAbandonGrace, onTimeout: { connection.closeNow() },
                            timeoutError: { SearchFailure(reason: "no answer") }
                        ) {
                            try await self.answer(of: connection)
                        }
                    } onCancel: {
                        connection.closeNow()
                    }
                    if !keeps(answer) { reporter.yield(generation) }
                    noteStandbyWaits(answer.commitsWaitingOnStandby)
                    try await Task.sleep(for: Self.watchInterval)
                }
            } catch {
                if !Task.isCancelled { reporter.yield(generation) }
            }
            noteStandbyWaits(nil)
            // Closed before it is released (PostgresNIO requires it), also when the task is cancelled.
            try? await connection.close()
            if !Task.isCancelled { try? await Task.sleep(for: Self.watchInterval) }
        }
    }

    /// How many of the serving host's sessions of this role have waited over a second for a synchronous standby to
    /// confirm their commit, as the watcher last saw (`nil`: not known, no watcher connection). More than zero for long means the standby
    /// `synchronous_standby_names` asks for is gone: every commit waits until it returns, or until its operation's
    /// deadline closes its connection (the transaction is then committed on the primary, unconfirmed by the standby,
    /// and the request answered 503).
    var commitsWaitingOnStandby: Int? { standbyWaits.withLock { $0 } }

    private func noteStandbyWaits(_ waiting: Int?) {
        let before = standbyWaits.withLock { state in
            defer { state = waiting }
            return state
        }
        if let waiting, waiting > 0, (before ?? 0) == 0 {
            logger.warning(
                "commits wait for a synchronous standby; writes answer 503 at their deadline until it returns",
                metadata: ["waiting": .stringConvertible(waiting)]
            )
        } else if let before, before > 0, waiting == 0 {
            logger.info("no commit waits for a synchronous standby any more")
        }
    }

    /// Returns when `task` has finished or `limit` has passed, whichever comes first (the task runs on).
    private static func wait(for task: Task<Void, Never>, atMost limit: Duration) async {
        let resumer = ResumeOnce()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            resumer.hold(continuation)
            Task {
                await task.value
                resumer.resume()
            }
            Task {
                try? await Task.sleep(for: limit)
                resumer.resume()
            }
        }
    }

    /// Why no host qualified, host by host.
    struct SearchFailure: Error {
        var reason: String
        /// A host answered that it is busy (too many clients, starting up): it may serve in a moment.
        var busy = false
    }

    /// The first host that qualifies, in the URL's order (for `prefer-standby`, else the first that answers).
    private func search() async -> Result<PostgresURL.Host, SearchFailure> {
        var fallback: PostgresURL.Host?
        var reasons: [String] = []
        var busy = false
        for host in configuration.hosts {
            switch await ask(host) {
            case .success(let answer):
                if accepts(answer) { return .success(host) }
                if fallback == nil, configuration.targetSession.fallsBackToAnyHost { fallback = host }
                reasons.append("\(host) is \(answer.refusal)")
            case .failure(let failure):
                reasons.append("\(host): \(failure.reason)")
                busy = busy || failure.busy
            }
        }
        if let fallback { return .success(fallback) }
        return .failure(SearchFailure(reason: reasons.joined(separator: "; "), busy: busy))
    }

    /// What a probe of the serving host found.
    enum Verdict {
        case serves
        /// No clear answer (busy, or no answer in time): the host may be overloaded or cut off.
        case uncertain(String)
        case lost(String)
    }

    /// Whether `host` still qualifies, or why not.
    private func qualify(_ host: PostgresURL.Host) async -> Verdict {
        switch await ask(host) {
        case .success(let answer):
            return keeps(answer) ? .serves : .lost("\(host) is \(answer.refusal)")
        case .failure(let failure) where failure.busy:
            return .uncertain("\(host): \(failure.reason)")
        case .failure(let failure):
            return .lost("\(host): \(failure.reason)")
        }
    }

    /// What a host says of itself.
    struct HostAnswer: Sendable {
        var inRecovery: Bool
        var readOnly: Bool
        /// This role's sessions waiting over a second for a synchronous standby to confirm their commit.
        var commitsWaitingOnStandby: Int

        /// Why a host that answered does not take writes, for logs and errors.
        var refusal: String { inRecovery ? "in recovery (a standby)" : "read-only" }
    }

    /// Whether a host that gave `answer` may be chosen on a search's first pass.
    private func accepts(_ answer: HostAnswer) -> Bool {
        configuration.targetSession.accepts(inRecovery: answer.inRecovery, readOnly: answer.readOnly)
    }

    /// Whether the serving host that gave `answer` goes on serving (under `prefer-standby`, any host that answers).
    private func keeps(_ answer: HostAnswer) -> Bool {
        accepts(answer) || configuration.targetSession.fallsBackToAnyHost
    }

    /// Connects to `host` once, within the operation timeout, and asks whether it is a standby and read-only.
    ///
    /// Cancelling the caller (the store stopping) closes the probe's connection, since postgres-nio's wait for an
    /// answer ignores cancellation: a host that never answers would otherwise hold the store's shutdown until the
    /// deadline. A connection still being opened is closed as soon as it opens (within the connect timeout).
    private func ask(_ host: PostgresURL.Host) async -> Result<HostAnswer, SearchFailure> {
        let timeout = configuration.operationTimeout
        do {
            let held = OperationConnections()
            let answer = try await withTaskCancellationHandler {
                try await withDeadline(
                    timeout, abandoningAfter: operationAbandonGrace, onTimeout: { held.closeAll() },
                    timeoutError: { SearchFailure(reason: "no answer within \(timeout)", busy: true) }
                ) {
                    let connection = try await self.connect(host)
                    held.hold(connection)
                    do {
                        let answer = try await self.answer(of: connection)
                        try? await connection.close()
                        return answer
                    } catch {
                        try? await connection.close()
                        throw error
                    }
                }
            } onCancel: {
                held.closeAll()
            }
            return .success(answer)
        } catch let failure as SearchFailure {
            return .failure(failure)
        } catch {
            return .failure(SearchFailure(reason: PostgresFailure.describe(error), busy: PostgresFailure.isBusy(error)))
        }
    }

    /// One connection of its own to `host` (not a pooled one).
    private func connect(_ host: PostgresURL.Host) async throws -> PostgresConnection {
        try await PostgresConnection.connect(
            on: MultiThreadedEventLoopGroup.singleton.any(),
            configuration: try configuration.probeConfiguration(for: host),
            id: 0,
            logger: logger
        )
    }

    /// Whether the server of `connection` is a standby, and whether it is read-only.
    private func answer(of connection: PostgresConnection) async throws -> HostAnswer {
        // pg_stat_activity shows the wait events of this role's own sessions to any role: the store's commits. A
        // healthy synchronous standby confirms within milliseconds; a commit waiting over a second is one it is not
        // confirming. Read only where a synchronous standby is asked for: it copies every backend's status.
        let rows = try await connection.query(
            """
            SELECT pg_is_in_recovery(), current_setting('transaction_read_only') = 'on',
                   CASE WHEN current_setting('synchronous_standby_names') = '' THEN 0 ELSE
                       (SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'SyncRep' AND usename = current_user
                          AND query_start < clock_timestamp() - interval '1 second')
                   END::int8
            """,
            logger: logger
        ).collect()
        guard let (inRecovery, readOnly, waiting) = try rows.first?.decode((Bool, Bool, Int64).self) else {
            throw SearchFailure(reason: "answered no row")
        }
        return HostAnswer(inRecovery: inRecovery, readOnly: readOnly, commitsWaitingOnStandby: Int(waiting))
    }
}

/// A continuation resumed by the first of several callers; the others do nothing.
private final class ResumeOnce: Sendable {
    private let continuation = Mutex<CheckedContinuation<Void, Never>?>(nil)

    func hold(_ continuation: CheckedContinuation<Void, Never>) {
        self.continuation.withLock { $0 = continuation }
    }

    func resume() {
        continuation.withLock { held -> CheckedContinuation<Void, Never>? in
            defer { held = nil }
            return held
        }?.resume()
    }
}
