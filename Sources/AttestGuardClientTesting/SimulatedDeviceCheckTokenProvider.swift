public import AttestGuardClient
public import Foundation

/// DeviceCheck tokens of a software device: opaque bytes naming the device, new for every call, which the
/// simulator's fake Apple accepts (and files under the device they name).
public actor SimulatedDeviceCheckTokenProvider: DeviceCheckTokenProvider {
    /// The device the tokens name.
    public let deviceIdentifier: String
    /// What ``isSupported`` answers.
    public var supported: Bool
    /// How many tokens were made.
    public private(set) var tokensGenerated = 0

    /// - Parameters:
    ///   - deviceIdentifier: The device the tokens name, as the fake Apple files them.
    ///   - supported: Whether the device has DeviceCheck; without it ``generateToken()`` throws `featureUnsupported`.
    public init(deviceIdentifier: String, supported: Bool = true) {
        self.deviceIdentifier = deviceIdentifier
        self.supported = supported
    }

    public var isSupported: Bool { supported }

    public func generateToken() async throws -> Data {
        guard supported else { throw AppAttestFailure(.featureUnsupported, "the device has no DeviceCheck") }
        tokensGenerated += 1
        return Data("devicecheck:\(deviceIdentifier):\(tokensGenerated)".utf8)
    }
}
