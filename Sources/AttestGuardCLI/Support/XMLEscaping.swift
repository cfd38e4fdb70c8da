/// Text made safe for an XML 1.0 document. Markup characters become entity references; tab, line feed and carriage
/// return in attribute values, and carriage return in content, become character references, so that a parser's
/// normalisation gives them back unchanged; characters XML 1.0 forbids (the C0 controls other than tab, line feed
/// and carriage return, U+FFFE and U+FFFF) are left out, since no parser accepts them, escaped or not.
package enum XMLEscaping {
    /// `text` for a double- or single-quoted attribute value.
    package static func attribute(_ text: String) -> String {
        escaped(text, inAttribute: true)
    }

    /// `text` for element content.
    package static func content(_ text: String) -> String {
        escaped(text, inAttribute: false)
    }

    /// Whether XML 1.0 allows `scalar` in a document (its production `Char`; Swift strings hold no surrogates).
    package static func isAllowed(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x9, 0xA, 0xD: true
        case 0x20...0xFFFD: true
        case 0x10000...: true
        default: false
        }
    }

    private static func escaped(_ text: String, inAttribute: Bool) -> String {
        var result = ""
        result.unicodeScalars.reserveCapacity(text.unicodeScalars.count)
        for scalar in text.unicodeScalars where isAllowed(scalar) {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"" where inAttribute: result += "&quot;"
            case "'" where inAttribute: result += "&apos;"
            case "\t" where inAttribute: result += "&#9;"
            case "\n" where inAttribute: result += "&#10;"
            case "\r": result += "&#13;"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
