public import Foundation

/// Linux stand-in for `DCAppAttestService` with the members the client uses and Apple's signatures. There is no
/// Secure Enclave here: `isSupported` is false and every call throws `DCError(.featureUnsupported)`, as on a device
/// without App Attest. Tests drive the client with the simulator-backed provider instead.
open class DCAppAttestService: NSObject {
    /// The stand-in holds no state, so each caller may have its own.
    open class var shared: DCAppAttestService { DCAppAttestService() }

    open var isSupported: Bool { false }

    open func generateKey() async throws -> String {
        throw DCError(.featureUnsupported)
    }

    open func attestKey(_ keyId: String, clientDataHash: Data) async throws -> Data {
        throw DCError(.featureUnsupported)
    }

    open func generateAssertion(_ keyId: String, clientDataHash: Data) async throws -> Data {
        throw DCError(.featureUnsupported)
    }
}
