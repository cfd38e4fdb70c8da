public import Foundation

/// Linux stand-in for `DCDevice` with the members the client uses and Apple's signatures: not supported, and
/// `generateToken` throws `DCError(.featureUnsupported)`.
open class DCDevice: NSObject {
    /// The stand-in holds no state, so each caller may have its own.
    open class var current: DCDevice { DCDevice() }

    open var isSupported: Bool { false }

    open func generateToken() async throws -> Data {
        throw DCError(.featureUnsupported)
    }
}
