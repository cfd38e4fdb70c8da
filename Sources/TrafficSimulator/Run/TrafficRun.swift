public import Foundation
import DeviceSimulator
import Synchronization

/// Plays the personas against a running server and reports how each fared. The scripted personas run side by side
/// while honest users keep up a steady trickle; honest traffic lasts at least the settings' duration and until every
/// scripted persona is done. A receipt watcher follows every key to its redeemed risk metric meanwhile.
public struct TrafficRun: Sendable {
    let context: TrafficContext

    public init(
        settings: TrafficSettings,
        api: AttestGuardAPI,
        fakeApple: FakeAppleControl?,
        tally: TrafficTally,
        now: @escaping @Sendable () -> Date = { Date() },
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    ) throws {
        context = TrafficContext(
            settings: settings, api: api, fakeApple: fakeApple, tally: tally,
            pki: try SimulatedApplePKI(seed: settings.simulatorSeed), now: now, sleep: sleep
        )
    }

    /// Runs every persona of the settings; the results are in the settings' order.
    public func run() async -> [PersonaResult] {
        let context = self.context
        let scriptedDone = DoneFlag()
        let watcher = Task { await ReceiptWatcher(context: context).run() }
        defer { watcher.cancel() }
        let deadline = ContinuousClock.now + context.settings.duration
        async let honest = Self.playHonest(context) { ContinuousClock.now >= deadline && scriptedDone.isSet }
        var outcomes: [Persona: [ObservedOutcome]] = [:]
        await withTaskGroup(of: (Persona, [ObservedOutcome]).self) { group in
            for persona in context.settings.personas where persona != .honest {
                group.addTask { (persona, await Self.checked { try await Self.play(persona, context) }) }
            }
            for await (persona, checked) in group { outcomes[persona] = checked }
        }
        scriptedDone.set()
        outcomes[.honest] = await honest
        return context.settings.personas.map { persona in
            PersonaResult(persona: persona, expected: PersonaExpectations.expected(for: persona), outcomes: outcomes[persona] ?? [])
        }
    }

    /// ``run()`` with a ``ProgressDisplay`` of the tally on standard error, drawn once more at the end.
    public func runShowingProgress() async -> [PersonaResult] {
        let progress = Task { [tally = context.tally] in await ProgressDisplay(tally: tally).run() }
        let results = await run()
        progress.cancel()
        await progress.value
        return results
    }

    private static func playHonest(_ context: TrafficContext, until done: @escaping @Sendable () -> Bool) async -> [ObservedOutcome] {
        guard context.settings.personas.contains(.honest) else { return [] }
        return await checked { try await HonestUsers.play(context, until: done) }
    }

    private static func play(_ persona: Persona, _ context: TrafficContext) async throws -> [ObservedOutcome] {
        switch persona {
        case .honest: []
        case .farm: try await DeviceFarm.play(context)
        case .promoAbuser: try await PromotionAbuser.play(context)
        case .replayer: try await Replayer.play(context)
        case .tamperer: try await Tamperer.play(context)
        case .unattestedOutsideRollout: try await UnattestedClients.play(context, insideRollout: false)
        case .unattestedInsideRollout: try await UnattestedClients.play(context, insideRollout: true)
        case .burst: try await AssertionBurst.play(context)
        case .resignedBuild: try await ResignedBuild.play(context)
        case .blockedRange: try await BlockedRange.play(context)
        }
    }

    /// The persona's checked outcomes, or its failure as the one outcome.
    private static func checked(_ body: () async throws -> [ObservedOutcome]) async -> [ObservedOutcome] {
        do {
            return try await body()
        } catch let failure as PersonaStepFailure {
            return [.unexpected(failure.description)]
        } catch {
            return [.unexpected(String(describing: error))]
        }
    }
}

/// Set once, read from any task: the scripted personas are done.
private final class DoneFlag: Sendable {
    private let flag = Mutex(false)

    var isSet: Bool { flag.withLock { $0 } }

    func set() { flag.withLock { $0 = true } }
}
