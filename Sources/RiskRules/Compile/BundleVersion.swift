/// An app's bundle version as rules compare it: dot-separated whole numbers (`CFBundleVersion`: `4`, `4.2`,
/// `4.2.1`), compared number by number with absent numbers read as zero, so `4.2` and `4.2.0` are equal and
/// `4.10` is above `4.9`. Text of any other form (letters, empty parts, more than eight parts, a part of more than
/// nine digits) is not a version: a comparison with it is missing, never a guess.
struct BundleVersion: Comparable, Sendable {
    /// The numbers, trailing zeros removed so that equal versions compare equal.
    let parts: [Int]

    /// The most parts a version may have.
    static let maximumParts = 8

    init?(_ text: String) {
        let pieces = text.split(separator: ".", omittingEmptySubsequences: false)
        guard !pieces.isEmpty, pieces.count <= Self.maximumParts else { return nil }
        var parts: [Int] = []
        for piece in pieces {
            guard (1...9).contains(piece.utf8.count), piece.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let number = Int(piece) else {
                return nil
            }
            parts.append(number)
        }
        while parts.last == 0 { parts.removeLast() }
        self.parts = parts
    }

    static func < (lhs: BundleVersion, rhs: BundleVersion) -> Bool {
        for index in 0..<max(lhs.parts.count, rhs.parts.count) {
            let left = index < lhs.parts.count ? lhs.parts[index] : 0
            let right = index < rhs.parts.count ? rhs.parts[index] : 0
            if left != right { return left < right }
        }
        return false
    }
}
