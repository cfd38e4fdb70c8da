/// Why a DeviceCheck call failed, decided by the HTTP status (Apple's body texts vary; they are kept as detail).
public struct DeviceCheckFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// The stable, snake_case name of the failure.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        public let rawValue: String
        private init(_ rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// 400: bad device token, bits, timestamp, authorization token or payload.
        public static let badRequest = Code("devicecheck_bad_request")
        /// 401: the provider token is invalid or expired.
        public static let unauthorized = Code("devicecheck_unauthorized")
        /// 403: forbidden.
        public static let forbidden = Code("devicecheck_forbidden")
        /// 405: method not allowed.
        public static let methodNotAllowed = Code("devicecheck_method_not_allowed")
        /// 429: too many requests.
        public static let throttled = Code("devicecheck_throttled")
        /// 500, 503 and other 5xx.
        public static let serverError = Code("devicecheck_server_error")
        /// No answer before the request deadline.
        public static let timedOut = Code("devicecheck_timed_out")
        /// The connection could not be made or broke.
        public static let connectionFailed = Code("devicecheck_connection_failed")
        /// A status Apple does not document, or a 200 body that cannot be read.
        public static let unexpectedResponse = Code("devicecheck_unexpected_response")
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
