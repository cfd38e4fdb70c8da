import AttestGuardWire

/// A strict, bounded CBOR decoder (RFC 8949).
///
/// It accepts definite and indefinite lengths, every major type, tags and simple values, and rejects
/// anything malformed with a ``CBORError`` that carries the byte offset. Limits on nesting depth,
/// item count and input size keep hostile input from exhausting the stack or memory: a declared
/// length is checked against the bytes that remain before anything is allocated.
public struct CBORDecoder: Sendable {
    /// Bounds that hold for one call to ``decode(_:)`` or ``decodePrefix(_:)``.
    public struct Limits: Sendable, Hashable {
        /// The deepest nesting of arrays, maps and tags accepted.
        public var maximumDepth: Int
        /// The largest number of data items accepted in one input.
        public var maximumItemCount: Int
        /// The largest input accepted, in bytes.
        public var maximumInputSize: Int

        public init(maximumDepth: Int = 16, maximumItemCount: Int = 4096, maximumInputSize: Int = 256 * 1024) {
            self.maximumDepth = maximumDepth
            self.maximumItemCount = maximumItemCount
            self.maximumInputSize = maximumInputSize
        }

        /// Limits that fit App Attest attestation and assertion objects with a wide margin.
        public static let appAttest = Limits()
    }

    public let limits: Limits

    public init(limits: Limits = .appAttest) {
        self.limits = limits
    }

    /// Decodes exactly one item that must span the whole input.
    public func decode(_ bytes: [UInt8]) throws(CBORError) -> CBOR {
        let (item, consumed) = try decodePrefix(bytes)
        guard consumed == bytes.count else {
            throw CBORError(.trailingBytes, at: consumed, "\(bytes.count - consumed) bytes after the item")
        }
        return item
    }

    /// Decodes the first item of the input and tells how many bytes it took.
    public func decodePrefix(_ bytes: [UInt8]) throws(CBORError) -> (item: CBOR, consumed: Int) {
        guard bytes.count <= limits.maximumInputSize else {
            throw CBORError(.sizeLimitExceeded, at: 0, "input of \(bytes.count) bytes exceeds \(limits.maximumInputSize)")
        }
        var reader = Reader(bytes: bytes, limits: limits)
        let item = try reader.readItem(depth: 0)
        return (item, reader.offset)
    }
}

extension CBORDecoder {
    /// The cursor over one input; it counts items and tracks the offset for errors.
    fileprivate struct Reader {
        let bytes: [UInt8]
        let limits: Limits
        var offset = 0
        var itemCount = 0

        init(bytes: [UInt8], limits: Limits) {
            self.bytes = bytes
            self.limits = limits
        }

        var remaining: Int { bytes.count - offset }

        mutating func readByte() throws(CBORError) -> UInt8 {
            guard offset < bytes.count else { throw CBORError(.unexpectedEnd, at: offset, "expected another byte") }
            defer { offset += 1 }
            return bytes[offset]
        }

        mutating func readBytes(_ count: Int) throws(CBORError) -> ArraySlice<UInt8> {
            guard count <= remaining else {
                throw CBORError(.lengthExceedsInput, at: offset, "needs \(count) bytes, \(remaining) remain")
            }
            defer { offset += count }
            return bytes[offset..<offset + count]
        }

        mutating func readUInt(byteCount: Int) throws(CBORError) -> UInt64 {
            guard byteCount <= remaining else {
                throw CBORError(.unexpectedEnd, at: offset, "needs \(byteCount) argument bytes, \(remaining) remain")
            }
            var value: UInt64 = 0
            for index in offset..<offset + byteCount {
                value = value << 8 | UInt64(bytes[index])
            }
            offset += byteCount
            return value
        }

        /// Reads the argument of an initial byte; `nil` means indefinite length (31).
        mutating func readArgument(_ additional: UInt8, start: Int) throws(CBORError) -> UInt64? {
            switch additional {
            case 0...23: return UInt64(additional)
            case 24: return try readUInt(byteCount: 1)
            case 25: return try readUInt(byteCount: 2)
            case 26: return try readUInt(byteCount: 4)
            case 27: return try readUInt(byteCount: 8)
            case 31: return nil
            default:
                throw CBORError(.reservedAdditionalInformation, at: start, "additional information \(additional)")
            }
        }

        mutating func countItem(at start: Int) throws(CBORError) {
            itemCount += 1
            guard itemCount <= limits.maximumItemCount else {
                throw CBORError(.itemLimitExceeded, at: start, "more than \(limits.maximumItemCount) items")
            }
        }

        /// Checks that `count` things of at least `minimumSize` bytes each can still fit in the input.
        func checkFits(_ count: UInt64, minimumSize: UInt64, at start: Int) throws(CBORError) -> Int {
            let (needed, overflow) = count.multipliedReportingOverflow(by: minimumSize)
            guard !overflow, needed <= UInt64(remaining) else {
                throw CBORError(.lengthExceedsInput, at: start, "declares \(count) elements, \(remaining) bytes remain")
            }
            return Int(count)
        }

        mutating func readItem(depth: Int) throws(CBORError) -> CBOR {
            let start = offset
            let initial = try readByte()
            if initial == 0xFF {
                throw CBORError(.unexpectedBreak, at: start, "break outside an indefinite-length item")
            }
            try countItem(at: start)
            let majorType = initial >> 5
            let additional = initial & 0x1F
            let argument = try readArgument(additional, start: start)

            switch majorType {
            case 0, 1:
                guard let value = argument else {
                    throw CBORError(.indefiniteLengthNotAllowed, at: start, "integer with indefinite length")
                }
                return majorType == 0 ? .unsigned(value) : .negative(value)
            case 2:
                return .bytes(try readString(majorType: 2, argument: argument, start: start))
            case 3:
                let raw = try readString(majorType: 3, argument: argument, start: start)
                guard let text = UTF8Text.string(raw) else {
                    throw CBORError(.invalidUTF8, at: start, "text string is not valid UTF-8")
                }
                return .text(text)
            case 4:
                return .array(try readArray(argument: argument, depth: depth, start: start))
            case 5:
                return .map(try readMap(argument: argument, depth: depth, start: start))
            case 6:
                guard let tag = argument else {
                    throw CBORError(.indefiniteLengthNotAllowed, at: start, "tag with indefinite length")
                }
                try checkDepth(depth, at: start)
                return .tagged(tag, try readItem(depth: depth + 1))
            default:
                return try readSimple(additional: additional, argument: argument, start: start)
            }
        }

        func checkDepth(_ depth: Int, at start: Int) throws(CBORError) {
            guard depth < limits.maximumDepth else {
                throw CBORError(.depthLimitExceeded, at: start, "nesting deeper than \(limits.maximumDepth)")
            }
        }

        mutating func readString(majorType: UInt8, argument: UInt64?, start: Int) throws(CBORError) -> [UInt8] {
            if let length = argument {
                guard length <= UInt64(remaining) else {
                    throw CBORError(.lengthExceedsInput, at: start, "string of \(length) bytes, \(remaining) remain")
                }
                return Array(try readBytes(Int(length)))
            }
            var joined: [UInt8] = []
            while true {
                let chunkStart = offset
                let initial = try readByte()
                if initial == 0xFF { return joined }
                guard initial >> 5 == majorType, initial & 0x1F != 31 else {
                    throw CBORError(.invalidIndefiniteChunk, at: chunkStart, "chunk is not a definite string of major type \(majorType)")
                }
                try countItem(at: chunkStart)
                guard let length = try readArgument(initial & 0x1F, start: chunkStart) else {
                    throw CBORError(.invalidIndefiniteChunk, at: chunkStart, "nested indefinite chunk")
                }
                guard length <= UInt64(remaining) else {
                    throw CBORError(.lengthExceedsInput, at: chunkStart, "chunk of \(length) bytes, \(remaining) remain")
                }
                joined.append(contentsOf: try readBytes(Int(length)))
            }
        }

        mutating func readArray(argument: UInt64?, depth: Int, start: Int) throws(CBORError) -> [CBOR] {
            try checkDepth(depth, at: start)
            var elements: [CBOR] = []
            if let count = argument {
                let fitting = try checkFits(count, minimumSize: 1, at: start)
                elements.reserveCapacity(fitting)
                for _ in 0..<fitting { elements.append(try readItem(depth: depth + 1)) }
                return elements
            }
            while try !consumeBreak() { elements.append(try readItem(depth: depth + 1)) }
            return elements
        }

        mutating func readMap(argument: UInt64?, depth: Int, start: Int) throws(CBORError) -> [CBORMapEntry] {
            try checkDepth(depth, at: start)
            var entries: [CBORMapEntry] = []
            var seenKeys = Set<CBOR>()
            func append(_ entries: inout [CBORMapEntry], _ key: CBOR, _ value: CBOR, keyOffset: Int) throws(CBORError) {
                guard seenKeys.insert(key).inserted else {
                    throw CBORError(.duplicateMapKey, at: keyOffset, "key \(key.typeName) appears twice")
                }
                entries.append(CBORMapEntry(key: key, value: value))
            }
            if let count = argument {
                let fitting = try checkFits(count, minimumSize: 2, at: start)
                entries.reserveCapacity(fitting)
                for _ in 0..<fitting {
                    let keyOffset = offset
                    let key = try readItem(depth: depth + 1)
                    try append(&entries, key, try readItem(depth: depth + 1), keyOffset: keyOffset)
                }
                return entries
            }
            while try !consumeBreak() {
                let keyOffset = offset
                let key = try readItem(depth: depth + 1)
                if offset < bytes.count, bytes[offset] == 0xFF {
                    throw CBORError(.unexpectedBreak, at: offset, "map key without a value")
                }
                try append(&entries, key, try readItem(depth: depth + 1), keyOffset: keyOffset)
            }
            return entries
        }

        /// Consumes a break byte if one is next; throws at the end of input.
        mutating func consumeBreak() throws(CBORError) -> Bool {
            guard offset < bytes.count else {
                throw CBORError(.unexpectedEnd, at: offset, "indefinite-length item without a break")
            }
            if bytes[offset] == 0xFF {
                offset += 1
                return true
            }
            return false
        }

        func readSimple(additional: UInt8, argument: UInt64?, start: Int) throws(CBORError) -> CBOR {
            switch additional {
            case 20: return .boolean(false)
            case 21: return .boolean(true)
            case 22: return .null
            case 23: return .undefined
            case 24:
                guard let value = argument, value >= 32 else {
                    throw CBORError(.invalidSimpleValue, at: start, "two-byte simple value below 32")
                }
                return .simple(UInt8(value))
            case 25: return .float(Self.halfToDouble(UInt16(argument ?? 0)))
            case 26: return .float(Double(Float(bitPattern: UInt32(argument ?? 0))))
            case 27: return .float(Double(bitPattern: argument ?? 0))
            case 31:
                // 0xFF is caught before; any other indefinite simple would already be a break.
                throw CBORError(.unexpectedBreak, at: start, "break outside an indefinite-length item")
            default:
                return .simple(additional)
            }
        }

        /// Widens an IEEE 754 half-precision value (RFC 8949 Appendix D).
        static func halfToDouble(_ half: UInt16) -> Double {
            let exponent = Int((half >> 10) & 0x1F)
            let mantissa = Double(half & 0x3FF)
            let magnitude: Double
            switch exponent {
            case 0: magnitude = mantissa * 0x1p-24
            case 31: magnitude = mantissa == 0 ? .infinity : .nan
            default: magnitude = (mantissa + 1024) * Double(sign: .plus, exponent: exponent - 25, significand: 1)
            }
            return half & 0x8000 != 0 ? -magnitude : magnitude
        }
    }
}
