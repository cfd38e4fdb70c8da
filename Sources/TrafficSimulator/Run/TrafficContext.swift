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

    /// A fresh app instance on its own device.
    func app(_ persona: Persona, name: String, ip: String, keyIndex: Int = 0) -> SimulatedAppInstance {
        let deviceId = "\(settings.runTag)-\(name)-device"
        let device = SimulatedDevice(pki: pki, identifier: deviceId, environment: settings.environment)
        return SimulatedAppInstance(
            persona: persona,
            client: SimulatedAppClient(
                device: device, app: .init(appId: settings.appId), keyIndex: keyIndex, userId: "\(settings.runTag)-\(name)", deviceId: deviceId
            ),
            ip: ip,
            context: self
        )
    }
}
