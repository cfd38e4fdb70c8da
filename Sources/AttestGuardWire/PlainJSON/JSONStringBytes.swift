/// The bytes a JSON string treats specially, tested eight at a time: the scan under the API's JSON reading
/// (``PlainJSONDocument``) and the server's JSON writing, which both pass over runs of plain bytes whole.
public enum JSONStringBytes {
    /// Whether any of the eight bytes of `word` is special in a JSON string: below 0x20 (a control character, raw
    /// in no valid string), a quote (0x22) or a backslash (0x5C). Each test is the exact "has a byte below n" of
    /// bit-twiddling folklore, `(x - n·0x01…01) & ~x & 0x80…80`, which is non-zero exactly when some byte of `x` is
    /// below `n` (n ≤ 0x80); bytes from 0x80 up (UTF-8 beyond ASCII) never count. A quote or a backslash is a zero
    /// byte of the word XORed with it. Public and inlinable so that callers in other modules inline it.
    @inlinable @inline(__always)
    public static func wordHasSpecialByte(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highBits: UInt64 = 0x8080_8080_8080_8080
        func hasByteBelow(_ limit: UInt64, _ x: UInt64) -> Bool { (x &- ones &* limit) & ~x & highBits != 0 }
        return hasByteBelow(0x20, word)
            || hasByteBelow(1, word ^ (ones &* 0x22))
            || hasByteBelow(1, word ^ (ones &* 0x5C))
    }
}
