#if canImport(DeviceCheck)
public import Foundation
import DeviceCheck

/// App Attest on the device: `DCAppAttestService.shared`, with Apple's `DCError` codes turned into
/// ``AppAttestFailure``. On Linux this compiles against the DeviceCheck stand-in, which reports no support.
@available(iOS 14.0, macOS 11.0, tvOS 15.0, watchOS 9.0, *)
public struct SystemAppAttestProvider: AppAttestProvider {
    /// App Attest of this device; it holds no state of its own.
    public init() {}

    public var isSupported: Bool {
        get async { DCAppAttestService.shared.isSupported }
    }

    public func generateKey() async throws -> String {
        do {
            return try await DCAppAttestService.shared.generateKey()
        } catch {
            throw AppAttestFailure(deviceCheckError: error)
        }
    }

    public func attestKey(_ keyId: String, clientDataHash: Data) async throws -> Data {
        do {
            return try await DCAppAttestService.shared.attestKey(keyId, clientDataHash: clientDataHash)
        } catch {
            throw AppAttestFailure(deviceCheckError: error)
        }
    }

    public func generateAssertion(_ keyId: String, clientDataHash: Data) async throws -> Data {
        do {
            return try await DCAppAttestService.shared.generateAssertion(keyId, clientDataHash: clientDataHash)
        } catch {
            throw AppAttestFailure(deviceCheckError: error)
        }
    }
}

/// DeviceCheck tokens on the device: `DCDevice.current`.
@available(iOS 11.0, macOS 10.15, tvOS 11.0, watchOS 9.0, *)
public struct SystemDeviceCheckTokenProvider: DeviceCheckTokenProvider {
    /// DeviceCheck of this device; it holds no state of its own.
    public init() {}

    public var isSupported: Bool {
        get async { DCDevice.current.isSupported }
    }

    public func generateToken() async throws -> Data {
        do {
            return try await DCDevice.current.generateToken()
        } catch {
            throw AppAttestFailure(deviceCheckError: error)
        }
    }
}

extension AppAttestFailure {
    /// A `DCError` by its code; any other error as an unknown system failure.
    init(deviceCheckError error: any Error) {
        guard let deviceCheck = error as? DCError else {
            self.init(.unknownSystemFailure, String(describing: error))
            return
        }
        let message = String(describing: error)
        if deviceCheck.code == .serverUnavailable {
            self.init(.serverUnavailable, message)
        } else if deviceCheck.code == .invalidKey {
            self.init(.invalidKey, message)
        } else if deviceCheck.code == .invalidInput {
            self.init(.invalidInput, message)
        } else if deviceCheck.code == .featureUnsupported {
            self.init(.featureUnsupported, message)
        } else {
            self.init(.unknownSystemFailure, message)
        }
    }
}
#endif
