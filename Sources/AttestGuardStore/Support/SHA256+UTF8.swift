public import Crypto

extension SHA256 {
    /// Hashes `text`'s UTF-8 in place, without copying it into an array first: the series ids of velocity sums and
    /// distinct counts hash a few strings for every verdict, and the copies were most of their cost in allocations.
    package mutating func update(utf8 text: String) {
        let hashed: Void? = text.utf8.withContiguousStorageIfAvailable { update(bufferPointer: UnsafeRawBufferPointer($0)) }
        if hashed == nil { update(data: Array(text.utf8)) }
    }
}
