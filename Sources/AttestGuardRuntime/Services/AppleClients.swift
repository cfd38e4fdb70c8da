public import AppleServices
import AsyncHTTPClient
public import AttestGuardEngine
import Foundation

/// The clients for Apple's services built from ``AppleConfiguration``, sharing one provider token source and
/// async-http-client's shared client. `nil` when no Apple credentials are configured.
public struct AppleClients: Sendable {
    public let receipts: any ReceiptRedeeming
    public let deviceCheck: any DeviceChecking
    public let teamId: String

    public init?(_ configuration: AppleConfiguration, clock: any EngineClock) {
        guard let credentials = configuration.credentials else { return nil }
        let tokens = ProviderTokenSource(credentials: credentials, now: { clock.now() })
        self.receipts = ReceiptRedemptionClient(tokens: tokens, configuration: configuration.receipts)
        self.deviceCheck = DeviceCheckClient(tokens: tokens, configuration: configuration.deviceCheck, now: { clock.now() })
        self.teamId = credentials.teamId
    }
}
