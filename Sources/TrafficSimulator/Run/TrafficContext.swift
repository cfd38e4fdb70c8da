import DeviceSimulator
import Foundation

/// What every persona works with: the settings, the API, the fake Apple's control route, the counters, the
/// simulator PKI the devices attest under, and the run's clock and sleep.
struct TrafficContext: Sendable {
    let settings: TrafficSettings
    let api: AttestGuardAPI
    let fakeApple: FakeAppleControl?
    let tally: TrafficTally
    let pki: SimulatedApplePKI
    let now: @Sendable () -> Date
    let sleep: @Sendable (Duration) async throws -> Void

    /// The OS version every persona's device runs: one whose App Attest sends the authenticator-extension map.
    static let osVersion = "27.0"

    /// A fresh app instance on its own device.
    func app(_ persona: Persona, name: String, ip: String, keyIndex: Int = 0) -> SimulatedAppInstance {
        let deviceId = "\(settings.runTag)-\(name)-device"
        var device = SimulatedDevice(pki: pki, identifier: deviceId, environment: settings.environment)
        // iOS 27: the attestation and every assertion carry the map (assertions with AT set, as real ones do).
        device.osVersion = Self.osVersion
        var client = SimulatedAppClient(
            device: device, app: .init(appId: settings.appId), keyIndex: keyIndex, userId: "\(settings.runTag)-\(name)", deviceId: deviceId
        )
        client.attestationExtensions = persona.build
        client.assertionExtensions = persona.build
        return SimulatedAppInstance(
            persona: persona,
            client: client,
            ip: ip,
            context: self
        )
    }
}
