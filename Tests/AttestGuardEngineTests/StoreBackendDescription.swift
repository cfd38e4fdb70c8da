public import AttestTestSupport
public import Testing

extension TestStoreBackend: CustomTestStringConvertible {
    public var testDescription: String { rawValue }
}
