public import AttestTestSupport
public import Testing

/// The store backends conformance tests run against (``TestStoreBackend``), named in test output.
typealias StoreBackend = TestStoreBackend

extension TestStoreBackend: CustomTestStringConvertible {
    public var testDescription: String { rawValue }
}
