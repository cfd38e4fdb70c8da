/// Every error answer's body: `{"error": {"code", "message"}}`, the code a stable snake_case word.
public struct ErrorResponseBody: Codable, Sendable, Hashable {
    /// What went wrong.
    public struct Detail: Codable, Sendable, Hashable {
        public var code: String
        /// For people; absent from some gateways' own answers.
        public var message: String?

        public init(code: String, message: String?) {
            self.code = code
            self.message = message
        }
    }

    public var error: Detail

    public init(code: String, message: String?) {
        error = Detail(code: code, message: message)
    }
}
