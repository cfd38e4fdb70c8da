extension String {
    /// Whether the two strings hold the same UTF-8 bytes.
    ///
    /// Swift's `==` compares by canonical equivalence (a precomposed "é" equals "e" and a combining accent), while
    /// SQL, keyed hashes, quotas and velocity compare bytes. Identifiers compare here, so that every layer agrees on
    /// who is who, and nothing normalises them.
    public func hasSameBytes(as other: String) -> Bool {
        utf8.elementsEqual(other.utf8)
    }
}
