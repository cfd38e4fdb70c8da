import AttestGuardWire
import Foundation

/// A small farm on an address range that an analyst blocks during the run: its first device attests and buys
/// (allowed), its second attests; then the analyst puts the range on the run-time list `blocked_ips` through
/// `/v1/lists` (for ten minutes, with a note), and the second device's next purchase is checked. No deployment and
/// no reload come between: the server that took the change reads it at once, and every other within its list
/// refresh period.
enum BlockedRange {
    /// The run-time list the shipped rules deny from (`blocked-ip`).
    static let list = "blocked_ips"
    /// How long the block lasts: past the run, but not for ever on a server the traffic was pointed at.
    static let ttlSeconds = 600
    /// The range's first host: 8 addresses (a /29) no other persona uses.
    static let firstHost = 240

    static func range(_ settings: TrafficSettings) -> String {
        "\(settings.clientAddress(host: firstHost))/29"
    }

    static func play(_ context: TrafficContext) async throws -> [ObservedOutcome] {
        var first = context.app(.blockedRange, name: "blocked-range-1", ip: context.settings.clientAddress(host: firstHost + 1))
        _ = try await first.attest()
        _ = try await first.assertSucceeding(action: "purchase")
        var second = context.app(.blockedRange, name: "blocked-range-2", ip: context.settings.clientAddress(host: firstHost + 2))
        _ = try await second.attest()

        // The analyst's step: the list exists when the rules declare it; creating it is harmless when it does.
        let created = try await context.api.post("/v1/lists", ManagedListCreateBody(name: list, kind: "cidr"))
        guard created.succeeded || created.status == 409 else { throw PersonaStepFailure(step: "list creation", outcome: created.outcome) }
        let blocked = try await context.api.post(ManagedListPaths.entries(list), ManagedListEntriesBody(
            entries: [ManagedListEntryInputBody(value: range(context.settings))], ttlSeconds: ttlSeconds,
            note: "attestguard simulate traffic: the blocked-range persona's farm"
        ))
        guard blocked.succeeded else { throw PersonaStepFailure(step: "blocking the range", outcome: blocked.outcome) }

        let purchase = try await second.signAssertion(action: "purchase")
        return [try await second.send(purchase).outcome]
    }
}
