import AttestVocabulary
package import AttestGuardEngine
import Foundation
package import Logging
import Metrics
import ServiceLifecycle
import Synchronization

/// Writes what the request path queued: the velocity increments and distinct counts' sightings (so other processes
/// see them within about two intervals), the decision log entries, the keys verdicts named (``KeyUseRecorder``) and the forward-auth answers'
/// counts (``GatewayCheckRecorder``, whose buckets past eight days it deletes with the decision log's days) and the
/// actions of fired rules (``RuleActionService``, whose runs it deletes a day after their hold ends) and the review
/// verdicts that open review items (``ReviewQueueRecorder``, whose closed items it deletes after the decision log's
/// retention) and the verdicts' webhook events (``WebhookPublisher``, whose delivered events it deletes after the
/// decision log's retention). A flush starts every `interval` and sends its chunks spread over
/// `spread` of it, side by side, so that the database spends no more than about a millisecond of a core on one
/// statement while requests wait; a flush that runs long delays the next one, never overlaps it. Beside the
/// flushes, every `compactEvery` it rolls aged velocity buckets up into coarser ones (paced, see
/// ``VelocityRecorder/compact(now:batch:dutyCycle:)``), deletes expired ones and a slice of the expired sightings
/// (``DistinctRecorder/purge(now:)``), and every `purgeEvery` it drops
/// expired decision log days: in a task of their own, so that an hour's rollup never holds back a flush. It flushes
/// once more, at once, on shutdown, within `shutdownBudget`: what that flush has not written by then is dropped,
/// counted as dropped and logged at warning with the counts, so that a database that stopped answering cannot hold
/// the process up. Counters `attestguard_velocity_rolled_up_buckets_total`, `attestguard_velocity_dropped_total`
/// and `attestguard_decision_log_dropped_total` (dropped because the store stayed down while the queue was full);
/// gauges `attestguard_velocity_pending_buckets` and `attestguard_decision_log_queued`.
package struct WriteBehindService: Service {
    package let engine: Engine
    package let logger: Logger
    package var interval: Duration = .seconds(1)
    /// The part of `interval` a flush spreads its chunks over.
    package var spread = 0.9
    package var compactEvery: Duration = .seconds(60)
    package var purgeEvery: Duration = .seconds(600)
    /// The longest the last flush, on shutdown, may take.
    package var shutdownBudget: Duration
    /// The queues' drops since start, as counters.
    private let droppedVelocity = CumulativeCounter { FloatingPointCounter(label: MetricFamily.velocityDropped.name).increment(by: $0) }
    private let droppedDistinct = CumulativeCounter { FloatingPointCounter(label: MetricFamily.distinctDropped.name).increment(by: $0) }
    private let droppedDecisions = CumulativeCounter { FloatingPointCounter(label: MetricFamily.decisionLogDropped.name).increment(by: $0) }

    package init(engine: Engine, logger: Logger, shutdownBudget: Duration) {
        self.engine = engine
        self.logger = logger
        self.shutdownBudget = shutdownBudget
        Counter(label: MetricFamily.velocityRolledUpBuckets.name).increment(by: 0)
    }

    package func run() async throws {
        // The loops run beside this task. Shutdown cancels them without waiting: a periodic flush whose statement is
        // stuck behind a lock does not always return on cancellation, and waiting for it would make the last flush's
        // budget no bound. The last flush then starts at once; only its budget bounds the wait.
        let loops = Task {
            await withDiscardingTaskGroup { group in
                group.addTask { await flushLoop() }
                group.addTask { await ruleActionLoop() }
                group.addTask { await maintenanceLoop() }
            }
        }
        try? await gracefulShutdown()
        loops.cancel()
        await finalFlush()
    }

    /// The shutdown flush, given up after `shutdownBudget`; what is still queued then is dropped and counted.
    ///
    /// The flush runs as a task of its own, which is cancelled but not awaited past the budget: a statement stuck
    /// behind a lock does not always return on cancellation, and waiting for it would make the budget no bound.
    package func finalFlush() async {
        let flushing = Task {
            await flush(spreadingOver: .zero)
            await runRuleActions()
        }
        let budget = shutdownBudget
        let finished = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let first = FirstAnswer(continuation)
            Task {
                await flushing.value
                first.resume(returning: true)
            }
            Task {
                try? await Task.sleep(for: budget)
                first.resume(returning: false)
            }
        }
        if !finished { flushing.cancel() }
        let velocity = engine.velocity.dropPending()
        let sightings = engine.distinct.dropPending()
        let decisions = engine.scorer.decisionLog.dropQueued()
        let keyUses = engine.scorer.keyUse.dropPending()
        let gatewayChecks = engine.gatewayChecks.dropPending()
        let debugTokenUses = engine.debugTokens.uses.dropPending()
        let ruleActions = engine.ruleActions.queue.dropQueued()
        let reviewOpenings = engine.reviews.recorder.dropPending()
        let webhookEvents = engine.webhooks.publisher.dropPending()
        recordBacklog()
        if velocity > 0 || sightings > 0 || decisions > 0 || keyUses > 0 || gatewayChecks > 0 || debugTokenUses > 0 || ruleActions > 0
            || reviewOpenings > 0 || webhookEvents > 0
        {
            logger.warning(
                "shutdown flush did not finish in time; unwritten entries dropped",
                metadata: ["velocity_buckets": .stringConvertible(velocity), "distinct_sightings": .stringConvertible(sightings),
                           "decision_log_entries": .stringConvertible(decisions),
                           "key_uses": .stringConvertible(keyUses), "gateway_checks": .stringConvertible(gatewayChecks),
                           "debug_token_uses": .stringConvertible(debugTokenUses), "rule_actions": .stringConvertible(ruleActions),
                           "review_openings": .stringConvertible(reviewOpenings), "webhook_events": .stringConvertible(webhookEvents),
                           "budget": .string("\(shutdownBudget)")]
            )
        }
    }

    private func flushLoop() async {
        let clock = ContinuousClock()
        var next = clock.now.advanced(by: interval)
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            let deadline = next
            _ = await cancelWhenGracefulShutdown { try? await Task.sleep(until: deadline, clock: clock) }
            if Task.isCancelled || Task.isShuttingDownGracefully { return }
            await flush(spreadingOver: interval * spread)
            next = max(next.advanced(by: interval), clock.now)
        }
    }

    private func maintenanceLoop() async {
        let clock = ContinuousClock()
        var lastPurge = clock.now
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            _ = await cancelWhenGracefulShutdown { try? await Task.sleep(for: compactEvery) }
            if Task.isCancelled || Task.isShuttingDownGracefully { return }
            // A paced rollup can take a while: shutdown cancels it (each statement commits whole or not at all).
            await cancelWhenGracefulShutdown { await compactVelocity() }
            if Task.isShuttingDownGracefully { return }
            await purgeDistinct()
            if clock.now - lastPurge >= purgeEvery {
                lastPurge = clock.now
                await purgeDecisionLog()
                await purgeGatewayChecks()
                await purgeRuleActionRuns()
                await purgeReviewItems()
                await purgeWebhookEvents()
            }
        }
    }

    private func flush(spreadingOver spread: Duration) async {
        defer { recordBacklog() }
        async let velocity: Void = flushVelocity(spreadingOver: spread)
        async let distinct: Void = flushDistinct(spreadingOver: spread)
        async let decisions: Void = flushDecisionLog(spreadingOver: spread)
        async let keyUse: Void = flushKeyUse()
        async let gatewayChecks: Void = flushGatewayChecks()
        async let debugTokenUses: Void = flushDebugTokenUses()
        async let reviewOpenings: Void = flushReviewOpenings()
        async let webhookEvents: Void = flushWebhookEvents()
        _ = await (velocity, distinct, decisions, keyUse, gatewayChecks, debugTokenUses, reviewOpenings, webhookEvents)
    }

    /// Runs the rule actions every `interval`, apart from the flushes: a burst of actions (each a few statements)
    /// never holds back the velocity counts or the decision log.
    private func ruleActionLoop() async {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            _ = await cancelWhenGracefulShutdown { try? await Task.sleep(for: interval) }
            if Task.isCancelled || Task.isShuttingDownGracefully { return }
            await runRuleActions()
            recordBacklog()
        }
    }

    private func runRuleActions() async {
        do {
            try await engine.ruleActions.run()
        } catch {
            logger.warning("rule actions not claimed; kept for the next flush", metadata: ["error": .string(String(describing: error))])
        }
    }

    private func purgeRuleActionRuns() async {
        do {
            _ = try await engine.ruleActions.purge(now: engine.clock.now())
        } catch {
            logger.warning("purge of old rule action runs failed", metadata: ["error": .string(String(describing: error))])
        }
    }

    private func flushReviewOpenings() async {
        do {
            try await engine.reviews.recorder.flush(now: engine.clock.now())
        } catch {
            logger.warning("review queue write failed; openings kept for the next flush", metadata: ["error": .string(String(describing: error))])
        }
    }

    private func flushWebhookEvents() async {
        do {
            try await engine.webhooks.publisher.flush()
        } catch {
            logger.warning("webhook outbox write failed; events kept for the next flush", metadata: ["error": .string(String(describing: error))])
        }
    }

    private func purgeWebhookEvents() async {
        do {
            _ = try await engine.webhooks.purge(now: engine.clock.now())
        } catch {
            logger.warning("purge of finished webhook events failed", metadata: ["error": .string(String(describing: error))])
        }
    }

    private func purgeReviewItems() async {
        do {
            _ = try await engine.reviews.purge(now: engine.clock.now())
        } catch {
            logger.warning("purge of closed review items failed", metadata: ["error": .string(String(describing: error))])
        }
    }

    private func flushDebugTokenUses() async {
        do {
            try await engine.debugTokens.uses.flush()
        } catch {
            logger.warning("debug token use write failed; uses kept for the next flush", metadata: ["error": .string(String(describing: error))])
        }
    }

    private func flushGatewayChecks() async {
        do {
            try await engine.gatewayChecks.flush()
        } catch {
            logger.warning("forward-auth counts write failed; counts kept for the next flush", metadata: ["error": .string(String(describing: error))])
        }
    }

    private func flushKeyUse() async {
        do {
            try await engine.scorer.keyUse.flush()
        } catch {
            logger.warning("key use write failed; uses kept for the next flush", metadata: ["error": .string(String(describing: error))])
        }
    }

    private func flushVelocity(spreadingOver spread: Duration) async {
        do {
            try await engine.velocity.flush(spreadingOver: spread)
        } catch {
            logger.warning("velocity flush failed; increments kept for the next flush", metadata: ["error": .string(String(describing: error))])
        }
    }

    private func flushDistinct(spreadingOver spread: Duration) async {
        do {
            try await engine.distinct.flush(spreadingOver: spread)
        } catch {
            logger.warning("distinct count sightings write failed; sightings kept for the next flush", metadata: ["error": .string(String(describing: error))])
        }
    }

    private func flushDecisionLog(spreadingOver spread: Duration) async {
        do {
            try await engine.scorer.decisionLog.flush(spreadingOver: spread)
        } catch {
            logger.warning("decision log write failed; entries kept for the next flush", metadata: ["error": .string(String(describing: error))])
        }
    }

    private func compactVelocity() async {
        do {
            let result = try await engine.velocity.compact(now: engine.clock.now())
            Counter(label: MetricFamily.velocityRolledUpBuckets.name).increment(by: result.movedBuckets)
        } catch where Task.isCancelled {
            // Shutting down (a statement cut short reports itself as a store failure): what moved is committed, the
            // rest moves next time.
        } catch {
            logger.warning("velocity rollup failed; aged buckets stay where they are until the next round", metadata: ["error": .string(String(describing: error))])
        }
    }

    private func purgeDistinct() async {
        do {
            _ = try await engine.distinct.purge(now: engine.clock.now())
        } catch {
            logger.warning("purge of expired distinct count sightings failed", metadata: ["error": .string(String(describing: error))])
        }
    }

    private func purgeDecisionLog() async {
        do {
            _ = try await engine.scorer.decisionLog.purge(now: engine.clock.now())
        } catch {
            logger.warning("purge of decision log days failed", metadata: ["error": .string(String(describing: error))])
        }
    }

    private func purgeGatewayChecks() async {
        do {
            _ = try await engine.gatewayChecks.purge(now: engine.clock.now())
        } catch {
            logger.warning("purge of old forward-auth counts failed", metadata: ["error": .string(String(describing: error))])
        }
    }

    private func recordBacklog() {
        let velocity = engine.velocity.backlog
        Gauge(label: MetricFamily.velocityPendingBuckets.name).record(velocity.pending)
        droppedVelocity.advance(to: Double(velocity.dropped))
        let distinct = engine.distinct.backlog
        Gauge(label: MetricFamily.distinctPendingMembers.name).record(distinct.pending)
        droppedDistinct.advance(to: Double(distinct.dropped))
        let log = engine.scorer.decisionLog.backlog
        Gauge(label: MetricFamily.decisionLogQueued.name).record(log.queued)
        droppedDecisions.advance(to: Double(log.dropped))
        Gauge(label: MetricFamily.ruleActionsQueued.name).record(engine.ruleActions.queue.queued)
        Gauge(label: MetricFamily.reviewOpeningsQueued.name).record(engine.reviews.recorder.queued)
        Gauge(label: MetricFamily.webhookEventsQueued.name).record(engine.webhooks.publisher.queued)
    }
}

/// Resumes a continuation with the first of several answers; the later ones are ignored.
private final class FirstAnswer<Value: Sendable>: Sendable {
    private let continuation: Mutex<CheckedContinuation<Value, Never>?>

    init(_ continuation: CheckedContinuation<Value, Never>) {
        self.continuation = Mutex(continuation)
    }

    func resume(returning value: Value) {
        continuation.withLock { $0.take() }?.resume(returning: value)
    }
}
