import Crypto

/// A number in [0, 1) derived from a seed and some labels with SHA-256: the same inputs always give the same
/// number, on every machine and in every process, so a fake's random-looking choices are reproducible.
enum StableFraction {
    static func of(_ parts: String...) -> Double {
        let digest = Array(SHA256.hash(data: Array(parts.joined(separator: "\u{1F}").utf8)))
        var value: UInt64 = 0
        for byte in digest.prefix(8) { value = value << 8 | UInt64(byte) }
        return Double(value >> 11) / Double(UInt64(1) << 53)
    }
}
