public import AttestVocabulary

/// What a traffic run plays, against which app, and for how long.
public struct TrafficSettings: Sendable {
    /// The app the personas use; the server must accept `environment` keys for it.
    public var appId: String
    /// The server's `simulator.seed`: the devices' attestations chain to the test PKI of this seed.
    public var simulatorSeed: String
    /// The App Attest environment of the simulated devices.
    public var environment: AppAttestEnvironment
    /// Part of every user, device and key of the run, so that runs against one server never collide.
    public var runTag: String
    public var personas: [Persona]
    /// How long honest users go on after the scripted personas are done (they always send at least one request).
    public var duration: Duration
    public var honestUsers: Int
    /// The pause between one honest user's requests: the shipped `assertion-burst` rule fires at 20 in a minute window
    /// (which reads up to two minute buckets), and a user gets 30 challenges per 5 minutes by default.
    public var honestInterval: Duration
    /// The app's `attestationRequiredPercent` on the server, to place the unattested personas inside or outside it.
    public var attestationRequiredPercent: Int
    /// How long the farm waits for the server to redeem its receipts.
    public var receiptTimeout: Duration

    public init(
        appId: String,
        simulatorSeed: String,
        environment: AppAttestEnvironment = .development,
        runTag: String,
        personas: [Persona] = Persona.allCases,
        duration: Duration = .seconds(20),
        honestUsers: Int = 8,
        honestInterval: Duration = .seconds(12),
        attestationRequiredPercent: Int = 50,
        receiptTimeout: Duration = .seconds(120)
    ) {
        self.appId = appId
        self.simulatorSeed = simulatorSeed
        self.environment = environment
        self.runTag = runTag
        self.personas = personas
        self.duration = duration
        self.honestUsers = honestUsers
        self.honestInterval = honestInterval
        self.attestationRequiredPercent = attestationRequiredPercent
        self.receiptTimeout = receiptTimeout
    }
}
