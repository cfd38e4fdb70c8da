import AttestGuardWire

/// Why App Attest or DeviceCheck failed on the device, as Apple's `DCError` codes say it. The client retries
/// ``Code/serverUnavailable`` with the same key, replaces the key once on ``Code/invalidKey`` and treats
/// ``Code/featureUnsupported`` as a device without App Attest.
public struct AppAttestFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// A stable code.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Value: String {
            case serverUnavailable = "server_unavailable"
            case invalidKey = "invalid_key"
            case invalidInput = "invalid_input"
            case featureUnsupported = "feature_unsupported"
            case unknownSystemFailure = "unknown_system_failure"
        }

        private let value: Value

        private init(_ value: Value) { self.value = value }

        /// Apple could not be reached or is throttling: retry later with the same key.
        public static let serverUnavailable = Code(.serverUnavailable)
        /// The key is gone (a reinstall, a restored backup) or was never attested: generate another.
        public static let invalidKey = Code(.invalidKey)
        /// The call's arguments were wrong (a client bug).
        public static let invalidInput = Code(.invalidInput)
        /// The device cannot do this.
        public static let featureUnsupported = Code(.featureUnsupported)
        /// Anything else the system reports.
        public static let unknownSystemFailure = Code(.unknownSystemFailure)

        public var description: String { value.rawValue }
    }

    /// What failed, as the client acts on it.
    public let code: Code
    /// What the system said, for logs.
    public let message: String

    /// A failure of `code`, with what the system said (a provider of your own throws these).
    public init(_ code: Code, _ message: String = "") {
        self.code = code
        self.message = message
    }

    /// Any error a provider threw: an ``AppAttestFailure`` as it is, anything else as an unknown system failure.
    public init(classifying error: any Error) {
        if let failure = error as? AppAttestFailure {
            self = failure
        } else {
            self.init(.unknownSystemFailure, String(describing: error))
        }
    }

    public var description: String { message.isEmpty ? code.description : "\(code): \(message)" }
}

extension AppAttestFailure.Code {
    /// The `DCError.Code` raw value this code stands for, as outcome reports carry it.
    var deviceCheckErrorCode: Int {
        switch self {
        case .serverUnavailable: DeviceCheckErrorCode.serverUnavailable
        case .invalidKey: DeviceCheckErrorCode.invalidKey
        case .invalidInput: DeviceCheckErrorCode.invalidInput
        case .featureUnsupported: DeviceCheckErrorCode.featureUnsupported
        default: DeviceCheckErrorCode.unknownSystemFailure
        }
    }
}
