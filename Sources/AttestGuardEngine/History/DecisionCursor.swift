import AttestCore
public import AttestGuardStore
import Foundation

/// Where a page of decisions ended, as an opaque text for the next request: base64url without padding of the last
/// entry's decision instant (microseconds since 1970) and sequence, 8 bytes each, big-endian. It names a position
/// in the log only, never a subject: a cursor used with another search reads that search from the position on.
public struct DecisionCursor: Sendable, Hashable {
    public let position: DecisionLogPosition

    public init(_ position: DecisionLogPosition) {
        self.position = position
    }

    /// Reads a cursor a page answered with.
    /// - Throws: `invalid_field` when `text` is not one.
    public init(text: String, field: String = "cursor") throws(EngineError) {
        guard text.utf8.count == 22, let bytes = Base64Text.decodeURL(text), bytes.count == 16, Base64Text.urlEncoded(bytes) == text else {
            throw EngineError.invalid(.invalidField, "\(field) is not a cursor this server answered with")
        }
        let microseconds = bytes.prefix(8).reduce(Int64(0)) { $0 << 8 | Int64($1) }
        let sequence = bytes.suffix(8).reduce(Int64(0)) { $0 << 8 | Int64($1) }
        // Years 1970 to 9999, as RFC 3339 writes them; sequences are positive.
        guard (0...253_402_300_799_999_999).contains(microseconds), sequence > 0 else {
            throw EngineError.invalid(.invalidField, "\(field) is not a cursor this server answered with")
        }
        position = DecisionLogPosition(decidedAt: Date(timeIntervalSince1970: Double(microseconds) / 1_000_000), sequence: sequence)
    }

    /// The cursor's text.
    public var text: String {
        let microseconds = Int64((position.decidedAt.timeIntervalSince1970 * 1_000_000).rounded())
        var bytes: [UInt8] = []
        bytes.reserveCapacity(16)
        for value in [microseconds, position.sequence] {
            for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: value >> Int64(shift))) }
        }
        return Base64Text.urlEncoded(bytes)
    }
}
