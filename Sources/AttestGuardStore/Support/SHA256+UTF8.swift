import Crypto

extension SHA256 {
    /// The first `length` bytes of SHA-256 over the UTF-8 of `parts` one after another, nothing between them (callers
    /// pass their separators as parts): the same bytes as hashing the joined text.
    ///
    /// The parts are copied into one temporary buffer (on the stack when small) and hashed in one call. The series ids
    /// of velocity sums and distinct counts, and the rollout bucket, are hashed for most verdicts (a new subject's
    /// series miss their memo), and each `update` of swift-crypto's `SHA256` costs about 500 instructions of
    /// bookkeeping besides its bytes: more than hashing a short part.
    package static func prefix(_ length: Int, ofUTF8 parts: [String]) -> [UInt8] {
        var byteCount = 0
        for part in parts { byteCount += part.utf8.count }
        return withUnsafeTemporaryAllocation(byteCount: byteCount, alignment: 1) { buffer in
            var written = 0
            for var part in parts {
                part.withUTF8 { utf8 in
                    precondition(written + utf8.count <= byteCount, "a part's UTF-8 outgrew its count")
                    UnsafeMutableRawBufferPointer(rebasing: buffer[written..<(written + utf8.count)]).copyMemory(from: UnsafeRawBufferPointer(utf8))
                }
                written += part.utf8.count
            }
            var hasher = SHA256()
            hasher.update(bufferPointer: UnsafeRawBufferPointer(buffer))
            return hasher.finalize().withUnsafeBytes { Array($0.prefix(length)) }
        }
    }
}
