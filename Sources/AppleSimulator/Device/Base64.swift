import Foundation

/// Standard base64, the encoding key ids and receipt tokens travel in.
enum Base64 {
    static func encode(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
    }
}
