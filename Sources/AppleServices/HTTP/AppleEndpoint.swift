public import AttestVocabulary

/// Where one of Apple's services lives — a host per App Attest environment — and how long to wait for it.
/// ``receiptRedemption`` and ``deviceCheck`` are Apple's; tests and the simulator name a fake with
/// ``init(baseURL:timeout:maximumResponseSize:)``.
public struct AppleEndpoint: Sendable, Hashable {
    /// The development host.
    public var developmentBaseURL: String
    /// The production host.
    public var productionBaseURL: String
    /// The deadline for one whole exchange.
    public var timeout: Duration
    /// The most response body read.
    public var maximumResponseSize: Int

    public init(developmentBaseURL: String, productionBaseURL: String, timeout: Duration = .seconds(10), maximumResponseSize: Int) {
        self.developmentBaseURL = developmentBaseURL
        self.productionBaseURL = productionBaseURL
        self.timeout = timeout
        self.maximumResponseSize = maximumResponseSize
    }

    /// One base URL for both environments (a fake Apple serving on one port).
    public init(baseURL: String, timeout: Duration = .seconds(10), maximumResponseSize: Int = 1 << 20) {
        self.init(developmentBaseURL: baseURL, productionBaseURL: baseURL, timeout: timeout, maximumResponseSize: maximumResponseSize)
    }

    /// The base URL for an environment.
    public func baseURL(for environment: AppAttestEnvironment) -> String {
        environment == .development ? developmentBaseURL : productionBaseURL
    }

    /// Apple's receipt redemption hosts; 1 MiB of body at most (a receipt is about 4 KiB).
    public static let receiptRedemption = AppleEndpoint(
        developmentBaseURL: "https://data-development.appattest.apple.com",
        productionBaseURL: "https://data.appattest.apple.com",
        maximumResponseSize: 1 << 20
    )

    /// Apple's DeviceCheck hosts; 64 KiB of body at most.
    public static let deviceCheck = AppleEndpoint(
        developmentBaseURL: "https://api.development.devicecheck.apple.com",
        productionBaseURL: "https://api.devicecheck.apple.com",
        maximumResponseSize: 64 * 1024
    )
}
