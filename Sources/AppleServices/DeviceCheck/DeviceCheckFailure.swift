public import AttestVocabulary

/// Why a DeviceCheck call failed, decided by the HTTP status (Apple's body texts vary; they are kept as detail).
public struct DeviceCheckFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// The failure, by the HTTP status: a closed subset of the registry.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        /// The registered code this failure reports.
        public let errorCode: ErrorCode
        private init(_ errorCode: ErrorCode) { self.errorCode = errorCode }
        public var description: String { errorCode.description }

        /// 400: bad device token, bits, timestamp, authorization token or payload.
        public static let badRequest = Code(.devicecheckBadRequest)
        /// 401: the provider token is invalid or expired.
        public static let unauthorized = Code(.devicecheckUnauthorized)
        /// 403: forbidden.
        public static let forbidden = Code(.devicecheckForbidden)
        /// 405: method not allowed.
        public static let methodNotAllowed = Code(.devicecheckMethodNotAllowed)
        /// 429: too many requests.
        public static let throttled = Code(.devicecheckThrottled)
        /// 500, 503 and other 5xx.
        public static let serverError = Code(.devicecheckServerError)
        /// No answer before the request deadline.
        public static let timedOut = Code(.devicecheckTimedOut)
        /// The connection could not be made or broke.
        public static let connectionFailed = Code(.devicecheckConnectionFailed)
        /// A status Apple does not document, or a 200 body that cannot be read.
        public static let unexpectedResponse = Code(.devicecheckUnexpectedResponse)
    }

    public var code: Code
    /// The HTTP status, when there was one.
    public var status: Int?
    /// What Apple said (body text, truncated) or what broke.
    public var detail: String

    public init(_ code: Code, status: Int? = nil, detail: String) {
        self.code = code
        self.status = status
        self.detail = detail
    }

    public static func == (lhs: DeviceCheckFailure, rhs: DeviceCheckFailure) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    public var description: String { "\(code): \(detail)" }
}
