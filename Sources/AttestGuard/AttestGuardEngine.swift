public import AppleServices
public import RiskStore

/// The verification core with its state: challenges, attestations, assertions, the key registry and DeviceCheck
/// bits over one store, one clock and one set of apps. The HTTP server and the CLI are thin layers over it.
public struct AttestGuardEngine: Sendable {
    public let apps: AppCatalog
    public let settings: EngineSettings
    public let store: any RiskStore
    public let clock: any EngineClock
    public let challenges: ChallengeService
    public let attestations: AttestationService
    public let assertions: AssertionService
    public let keys: KeyService
    public let deviceCheck: DeviceCheckService

    /// - Parameter deviceCheck: Apple's DeviceCheck API (`AppleClients.deviceCheck`); `nil` when no Apple
    ///   credentials are configured, which makes the DeviceCheck calls `devicecheck_unavailable`.
    public init(
        store: any RiskStore,
        apps: AppCatalog,
        settings: EngineSettings,
        clock: any EngineClock = SystemClock(),
        deviceCheck: (any DeviceChecking)? = nil
    ) {
        let metrics = EngineMetrics()
        self.apps = apps
        self.settings = settings
        self.store = store
        self.clock = clock
        self.challenges = ChallengeService(store: store, apps: apps, settings: settings, clock: clock, metrics: metrics)
        self.attestations = AttestationService(store: store, apps: apps, settings: settings, clock: clock, metrics: metrics)
        self.assertions = AssertionService(store: store, apps: apps, settings: settings, clock: clock, metrics: metrics)
        self.keys = KeyService(store: store, apps: apps, clock: clock)
        self.deviceCheck = DeviceCheckService(client: deviceCheck, store: store, apps: apps, clock: clock, metrics: metrics)
    }
}
