package import AttestGuardEngine
package import Foundation
package import Logging
import ServiceLifecycle

/// Runs the automatic attestation rollout (``AttestationRampController``) in every server process: at start it
/// starts the ramps that have nothing stored, then evaluates at each period boundary plus `grace` (so that the
/// outcomes other processes count just before the boundary are stored). Every process wakes; the store lets only one
/// take each step. The wait is on the engine clock's reading, slept in chunks of at most `chunk` and read again after
/// each. A failed start or evaluation is logged and retried `retry` later. Without a ramping app it only waits for
/// shutdown.
package struct AttestationRampService: Service {
    package let controller: AttestationRampController
    package let clock: any EngineClock
    package let logger: Logger
    package var grace: TimeInterval = 30
    package var retry: TimeInterval = 60
    package var chunk: TimeInterval = 3600
    /// Called after each successful start or evaluation (tests wait on it).
    package var evaluated: (@Sendable () -> Void)? = nil

    package init(
        controller: AttestationRampController, clock: any EngineClock, logger: Logger, grace: TimeInterval = 30, retry: TimeInterval = 60,
        chunk: TimeInterval = 3600, evaluated: (@Sendable () -> Void)? = nil
    ) {
        self.controller = controller
        self.clock = clock
        self.logger = logger
        self.grace = grace
        self.retry = retry
        self.chunk = chunk
        self.evaluated = evaluated
    }

    package func run() async throws {
        guard controller.nextBoundary(after: clock.now()) != nil else {
            try? await gracefulShutdown()
            return
        }
        var deadline = clock.now()
        var started = false
        while await sleep(until: deadline) {
            do {
                if started { try await controller.tick() } else { try await controller.start() }
                started = true
                evaluated?()
                guard let boundary = controller.nextBoundary(after: clock.now()) else { return }
                deadline = boundary.addingTimeInterval(grace)
            } catch {
                logger.warning("attestation ramp not evaluated; retrying", metadata: ["error": .string(String(describing: error))])
                deadline = clock.now().addingTimeInterval(retry)
            }
        }
    }

    /// Sleeps until the clock reads `deadline`; false once the service should stop (cancelled or shutting down).
    private func sleep(until deadline: Date) async -> Bool {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            let remaining = deadline.timeIntervalSince(clock.now())
            if remaining <= 0 { return true }
            let seconds = min(remaining, chunk)
            _ = await cancelWhenGracefulShutdown { try? await Task.sleep(for: .milliseconds(Int64((seconds * 1000).rounded(.up)))) }
        }
        return false
    }
}
