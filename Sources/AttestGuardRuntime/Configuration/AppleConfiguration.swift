public import AppleServices

/// How AttestGuard reaches Apple's receipt and DeviceCheck services: the provider key (a .p8 with DeviceCheck
/// enabled) and the hosts. Without credentials nothing calls Apple: receipts are not refreshed and the
/// DeviceCheck routes answer 503 `devicecheck_unavailable`.
public struct AppleConfiguration: Sendable {
    /// The team id, key id and private key; `nil` when not configured.
    public var credentials: AppleProviderCredentials?
    /// Apple's redemption hosts unless simulator mode names others.
    public var receipts: AppleEndpoint
    /// Apple's DeviceCheck hosts unless simulator mode names others.
    public var deviceCheck: AppleEndpoint

    public init(
        credentials: AppleProviderCredentials? = nil,
        receipts: AppleEndpoint = .receiptRedemption,
        deviceCheck: AppleEndpoint = .deviceCheck
    ) {
        self.credentials = credentials
        self.receipts = receipts
        self.deviceCheck = deviceCheck
    }
}
