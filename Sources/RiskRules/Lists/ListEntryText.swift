public import AttestVocabulary

/// The one form an entry of a list takes, whichever way it arrives (a list file, the API, the CLI, a CSV upload):
/// `string` entries trimmed of surrounding white space, `cidr` entries as their block's canonical text. An entry that
/// is empty, longer than ``maximumBytes``, holds a control character, or (for `cidr`) is not an address or block, has
/// no form: ``normalise(_:kind:)`` says why.
public enum ListEntryText {
    /// The longest entry, in UTF-8 bytes: a user id, an address, a version fits many times over.
    public static let maximumBytes = 256

    /// The entry's stored form, or why it has none (a sentence for the error's message).
    public static func normalise(_ raw: some StringProtocol, kind: ListKind) -> Result<String, Refusal> {
        let trimmed = raw.trimmingWhitespace
        guard !trimmed.isEmpty else { return .failure(Refusal("an entry is empty")) }
        guard trimmed.utf8.count <= maximumBytes else {
            return .failure(Refusal("an entry is at most \(maximumBytes) bytes, this one \(trimmed.utf8.count)"))
        }
        guard !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            return .failure(Refusal("an entry holds no control characters"))
        }
        switch kind {
        case .string:
            return .success(trimmed)
        case .cidr:
            guard let block = CIDRBlock(trimmed) else {
                return .failure(Refusal("\(excerpt(trimmed)) is not an IPv4 or IPv6 address or CIDR block (such as 203.0.113.0/24 or 2001:db8::/32)"))
            }
            return .success(block.text)
        }
    }

    /// Why an entry has no stored form.
    public struct Refusal: Error, Sendable, Hashable {
        public var message: String
        init(_ message: String) { self.message = message }
    }

    /// At most 64 characters of an entry, for a message.
    static func excerpt(_ text: String) -> String {
        text.count <= 64 ? "\"\(text)\"" : "\"\(text.prefix(64))…\""
    }
}

extension StringProtocol {
    /// The text without white space (spaces, tabs, line breaks) at either end.
    var trimmingWhitespace: String {
        var scalars = Substring(self).unicodeScalars[...]
        while let first = scalars.first, first.properties.isWhitespace { scalars = scalars.dropFirst() }
        while let last = scalars.last, last.properties.isWhitespace { scalars = scalars.dropLast() }
        return String(String.UnicodeScalarView(scalars))
    }
}
