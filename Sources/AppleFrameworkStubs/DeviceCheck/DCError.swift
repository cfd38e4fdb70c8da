public import Foundation

/// Linux stand-in for DeviceCheck's `DCError`: the same name, codes and raw values as Apple's, so that the client's
/// handling of `serverUnavailable`, `invalidKey` and the rest compiles and is tested in CI.
public struct DCError: Error, Hashable, Sendable, CustomNSError {
    /// Apple's `DCError.Code`, with Apple's raw values.
    public enum Code: Int, Sendable, Hashable {
        case unknownSystemFailure = 0
        case featureUnsupported = 1
        case invalidInput = 2
        case invalidKey = 3
        case serverUnavailable = 4
    }

    public let code: Code

    public init(_ code: Code, userInfo: [String: Any] = [:]) {
        self.code = code
    }

    public static var errorDomain: String { DCErrorDomain }
    public var errorCode: Int { code.rawValue }

    public static var unknownSystemFailure: Code { .unknownSystemFailure }
    public static var featureUnsupported: Code { .featureUnsupported }
    public static var invalidInput: Code { .invalidInput }
    public static var invalidKey: Code { .invalidKey }
    public static var serverUnavailable: Code { .serverUnavailable }
}

/// Apple's error domain of DeviceCheck.
public let DCErrorDomain = "com.apple.devicecheck.error"
