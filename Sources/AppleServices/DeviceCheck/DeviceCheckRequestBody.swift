/// The JSON body of every DeviceCheck request, as Apple names its fields.
///
/// `bit0` and `bit1` are sent by `update_two_bits` only, and only when set; `timestamp` is milliseconds since
/// 1970.
public struct DeviceCheckRequestBody: Codable, Sendable, Hashable {
    /// The base64 token from `DCDevice.generateToken`.
    public var deviceToken: String
    /// A unique id for this request.
    public var transactionId: String
    /// Milliseconds since 1970.
    public var timestamp: Int64
    /// The new first bit (update only; absent keeps it).
    public var bit0: Bool?
    /// The new second bit (update only; absent keeps it).
    public var bit1: Bool?

    public init(deviceToken: String, transactionId: String, timestamp: Int64, bit0: Bool? = nil, bit1: Bool? = nil) {
        self.deviceToken = deviceToken
        self.transactionId = transactionId
        self.timestamp = timestamp
        self.bit0 = bit0
        self.bit1 = bit1
    }

    enum CodingKeys: String, CodingKey {
        case deviceToken = "device_token"
        case transactionId = "transaction_id"
        case timestamp
        case bit0
        case bit1
    }
}
