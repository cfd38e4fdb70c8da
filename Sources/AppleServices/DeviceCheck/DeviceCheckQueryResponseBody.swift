/// The JSON body of a `query_two_bits` answer that found bits: `{"bit0", "bit1", "last_update_time"}`.
public struct DeviceCheckQueryResponseBody: Codable, Sendable, Hashable {
    public var bit0: Bool
    public var bit1: Bool
    /// `YYYY-MM`.
    public var lastUpdateTime: String

    public init(_ bits: DeviceCheckBits) {
        self.bit0 = bits.bit0
        self.bit1 = bits.bit1
        self.lastUpdateTime = bits.lastUpdateTime
    }

    /// The bits this body carries.
    public var bits: DeviceCheckBits { DeviceCheckBits(bit0: bit0, bit1: bit1, lastUpdateTime: lastUpdateTime) }

    /// The plain-text 200 body Apple sends when the device's bits were never set.
    public static let notFoundText = "Bit State Not Found"

    enum CodingKeys: String, CodingKey {
        case bit0
        case bit1
        case lastUpdateTime = "last_update_time"
    }
}
