public import AttestVocabulary
import Crypto
import Foundation

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
    /// The personas to play, each once (honest users are many).
    public var personas: [Persona]
    /// How long honest traffic lasts at least, counted from the start of the run; it also lasts until every scripted
    /// persona is done, and each honest user sends at least one request.
    public var duration: Duration
    /// How many honest users there are (at most ``maximumHonestUsers``), each on its own device and address.
    public var honestUsers: Int
    /// The pause between one honest user's requests: the shipped `assertion-burst` rule fires at 20 in a minute window
    /// (which reads up to two minute buckets) or 300 in an hour, and a user gets 30 challenges per 5 minutes by default.
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
        honestInterval: Duration = TrafficSettings.defaultHonestInterval,
        attestationRequiredPercent: Int = 50,
        receiptTimeout: Duration = .seconds(120)
    ) {
        self.appId = appId
        self.simulatorSeed = simulatorSeed
        self.environment = environment
        self.runTag = runTag
        self.personas = personas
        self.duration = duration
        self.honestUsers = min(max(honestUsers, 1), Self.maximumHonestUsers)
        self.honestInterval = honestInterval
        self.attestationRequiredPercent = attestationRequiredPercent
        self.receiptTimeout = receiptTimeout
    }

    /// One honest user's pause between requests unless set: 240 an hour, under every shipped velocity threshold.
    public static let defaultHonestInterval: Duration = .seconds(15)

    /// The most honest users a run has: one client address each, in one /24 of the run's own.
    public static let maximumHonestUsers = 150

    /// The address of client `host` (1...254) of this run: `10.a.b.host`, with `a` and `b` from the run tag, so that
    /// what one run leaves in a kept store's per-IP velocity (new keys per IP over 24 hours, say) never counts
    /// towards another run's personas.
    public func clientAddress(host: Int) -> String {
        let digest = Array(SHA256.hash(data: Data(runTag.utf8)))
        return "10.\(digest[0]).\(digest[1]).\(host)"
    }
}

extension TrafficSettings {
    /// The one address every farm device shares.
    public var farmAddress: String { clientAddress(host: 1) }
}
