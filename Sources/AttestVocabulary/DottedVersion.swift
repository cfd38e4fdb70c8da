/// A version as rules and app policies compare it: dot-separated whole numbers (an app's `CFBundleVersion`: `4`,
/// `4.2`, `4.2.1`; an operating system's `27.0`), compared number by number with absent numbers read as zero, so `4.2` and `4.2.0` are equal and
/// `4.10` is above `4.9`. Text of any other form (letters, empty parts, more than eight parts, a part of more than
/// eighteen digits) is not a version: a comparison with it is missing, never a guess.
public struct DottedVersion: Comparable, Hashable, Sendable, CustomStringConvertible {
    /// The numbers, trailing zeros removed so that equal versions compare equal.
    public let parts: [Int]

    /// The most parts a version may have.
    public static let maximumParts = 8
    /// The most digits a part may have: date-style build numbers (`2026042101`, `202604211530`) fit, and any part
    /// fits an `Int`.
    public static let maximumDigits = 18

    public init?(_ text: String) {
        let pieces = text.split(separator: ".", omittingEmptySubsequences: false)
        guard !pieces.isEmpty, pieces.count <= Self.maximumParts else { return nil }
        var parts: [Int] = []
        for piece in pieces {
            guard (1...Self.maximumDigits).contains(piece.utf8.count), piece.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let number = Int(piece) else {
                return nil
            }
            parts.append(number)
        }
        while parts.last == 0 { parts.removeLast() }
        self.parts = parts
    }

    public static func < (lhs: DottedVersion, rhs: DottedVersion) -> Bool {
        for index in 0..<max(lhs.parts.count, rhs.parts.count) {
            let left = index < lhs.parts.count ? lhs.parts[index] : 0
            let right = index < rhs.parts.count ? rhs.parts[index] : 0
            if left != right { return left < right }
        }
        return false
    }

    /// The numbers joined by dots, trailing zeros dropped (`4.2` for `4.2.0`; `0` for a version of zeros).
    public var description: String { parts.isEmpty ? "0" : parts.map(String.init).joined(separator: ".") }
}
