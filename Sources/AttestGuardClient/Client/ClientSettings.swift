import Foundation

/// What the parts of one client share: the device's App Attest, the key store, the app-facing routes, the clock,
/// the retry rules and the app's settings.
struct ClientSettings: Sendable {
    var provider: any AppAttestProvider
    var deviceCheck: (any DeviceCheckTokenProvider)?
    var keyStore: any KeyIdStore
    var routes: AppFacingClient
    var transport: any HTTPTransport
    var clock: any ClientClock
    var retry: RetryPolicy
    var hashConvention: AttestationHashConvention
    var deviceId: String?
    var onEvent: @Sendable (ClientEvent) -> Void
}
