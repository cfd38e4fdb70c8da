/// A rule's reason: text with `{expression}` placeholders (usually a signal, `{receipt.risk_metric}`) compiled with
/// the rule, rendered with the evaluation's values; a missing value renders as `missing`. `{{` and `}}` are
/// literal braces.
struct ReasonTemplate: Sendable {
    enum Part: Sendable {
        case text(String)
        case value(@Sendable (SignalValues) -> String?)
    }

    let parts: [Part]

    func render(_ values: SignalValues) -> String {
        var output = ""
        for part in parts {
            switch part {
            case .text(let text): output += text
            case .value(let display): output += display(values) ?? "missing"
            }
        }
        return output
    }

    /// Compiles `template`; placeholder errors carry ranges in the template text.
    static func compile(_ template: String, with compiler: inout ExpressionCompiler) throws(ExpressionError) -> ReasonTemplate {
        let bytes = Array(template.utf8)
        var parts: [Part] = []
        var literal: [UInt8] = []
        var index = 0
        let open = UInt8(ascii: "{"), close = UInt8(ascii: "}")
        while index < bytes.count {
            let byte = bytes[index]
            if (byte == open || byte == close), index + 1 < bytes.count, bytes[index + 1] == byte {
                literal.append(byte)
                index += 2
                continue
            }
            if byte == close {
                throw ExpressionError(.syntax, "`}` without `{` in the reason", at: index..<index + 1, hint: "write `}}` for a literal brace")
            }
            guard byte == open else {
                literal.append(byte)
                index += 1
                continue
            }
            guard let end = bytes[(index + 1)...].firstIndex(of: close) else {
                throw ExpressionError(.syntax, "`{` is not closed in the reason", at: index..<bytes.count, hint: "write `{{` for a literal brace")
            }
            if !literal.isEmpty {
                parts.append(.text(String(decoding: literal, as: UTF8.self)))
                literal = []
            }
            let inner = String(decoding: bytes[(index + 1)..<end], as: UTF8.self)
            do {
                let node = try Parser.parse(inner)
                parts.append(.value(try compiler.compile(node).display))
            } catch {
                throw ExpressionError(error.code, error.message, at: (error.range.lowerBound + index + 1)..<(error.range.upperBound + index + 1), hint: error.hint)
            }
            index = end + 1
        }
        if !literal.isEmpty { parts.append(.text(String(decoding: literal, as: UTF8.self))) }
        return ReasonTemplate(parts: parts)
    }
}
