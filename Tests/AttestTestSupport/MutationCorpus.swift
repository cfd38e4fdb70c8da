/// A seeded generator of hostile variants of a valid object: bit flips, truncations, length-field edits,
/// nesting bombs, huge declared lengths and spliced garbage. The same seed always gives the same corpus,
/// so a failure names a reproducible (object, index) pair.
public struct MutationCorpus: Sequence {
    public let original: [UInt8]
    public let seed: UInt64
    public let count: Int

    public init(of original: [UInt8], seed: UInt64, count: Int) {
        self.original = original
        self.seed = seed
        self.count = count
    }

    /// A corpus seeded by a name (FNV-1a, the same in every process, unlike Swift's `hashValue`).
    public init(of original: [UInt8], named name: String, count: Int) {
        let seed = name.utf8.reduce(0xCBF2_9CE4_8422_2325 as UInt64) { ($0 ^ UInt64($1)) &* 0x100_0000_01B3 }
        self.init(of: original, seed: seed, count: count)
    }

    public func makeIterator() -> AnyIterator<Mutation> {
        var generator = SplitMix64(seed: seed)
        var index = 0
        return AnyIterator {
            guard index < count else { return nil }
            defer { index += 1 }
            return Mutation.make(of: original, index: index, using: &generator)
        }
    }
}

/// One mutated object and how it was made.
public struct Mutation: CustomStringConvertible, Sendable {
    public let index: Int
    public let kind: String
    public let bytes: [UInt8]

    public var description: String { "#\(index) \(kind) (\(bytes.count) bytes)" }

    static func make(of original: [UInt8], index: Int, using generator: inout SplitMix64) -> Mutation {
        var bytes = original
        guard !bytes.isEmpty else { return Mutation(index: index, kind: "empty", bytes: []) }
        func position() -> Int { Int(generator.next() % UInt64(bytes.count)) }
        let kind: String
        switch generator.next() % 8 {
        case 0:
            let flips = 1 + Int(generator.next() % 4)
            for _ in 0..<flips { bytes[position()] ^= UInt8(1) << (generator.next() % 8) }
            kind = "flip \(flips) bits"
        case 1:
            let length = position()
            bytes = Array(bytes.prefix(length))
            kind = "truncate to \(length)"
        case 2:
            let at = position()
            let values: [UInt8] = [0x00, 0x17, 0x18, 0x1B, 0x1F, 0x5B, 0x7F, 0x80, 0x81, 0x84, 0x9F, 0xBF, 0xFF]
            bytes[at] = values[Int(generator.next() % UInt64(values.count))]
            kind = "length byte at \(at) = \(bytes[at])"
        case 3:
            let depth = 16 + Int(generator.next() % 5_000)
            let openers: [UInt8] = [0x81, 0x9F, 0xA1, 0xC6, 0x30, 0x24]
            let opener = openers[Int(generator.next() % UInt64(openers.count))]
            let at = position()
            bytes.insert(contentsOf: [UInt8](repeating: opener, count: depth), at: at)
            kind = "nesting bomb \(depth)x\(opener) at \(at)"
        case 4:
            let at = position()
            let head: [[UInt8]] = [
                [0x5B, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF], [0x9B, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF],
                [0xBA, 0xFF, 0xFF, 0xFF, 0xFF], [0x84, 0xFF, 0xFF, 0xFF, 0xFF], [0x30, 0x88, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF],
            ]
            let chosen = head[Int(generator.next() % UInt64(head.count))]
            bytes.replaceSubrange(at..<min(bytes.count, at + chosen.count), with: chosen)
            kind = "huge length at \(at)"
        case 5:
            let start = position()
            let end = min(bytes.count, start + 1 + Int(generator.next() % 64))
            bytes.removeSubrange(start..<end)
            kind = "delete \(start)..<\(end)"
        case 6:
            let at = position()
            let garbage = (0..<(1 + Int(generator.next() % 32))).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            bytes.insert(contentsOf: garbage, at: at)
            kind = "insert \(garbage.count) random bytes at \(at)"
        default:
            let at = position()
            bytes[at] = bytes[at] &+ UInt8(1 + generator.next() % 3)
            kind = "increment byte at \(at)"
        }
        return Mutation(index: index, kind: kind, bytes: bytes)
    }
}

/// A small, fast, seedable PRNG (Steele, Lea, Flood 2014).
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
