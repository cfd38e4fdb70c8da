/// Splits a rule expression into tokens. Numbers are decimal (`10`, `2.5`); a number followed directly by `s`,
/// `m`, `h`, `d` or `w` is a duration (`90s`, `24h`, `7d`); strings take double or single quotes with `\"`, `\'`,
/// `\\` and `\n` escapes; names are letters, digits and `_`, joined by dots, and a segment after a dot may start
/// with a digit (`velocity.assertions.key.1h`).
struct Lexer {
    private let bytes: [UInt8]
    private var position = 0

    init(_ text: String) {
        self.bytes = Array(text.utf8)
    }

    /// All tokens, ending with ``Token/Kind/end``.
    static func tokens(of text: String) throws(ExpressionError) -> [Token] {
        var lexer = Lexer(text)
        var tokens: [Token] = []
        while true {
            let token = try lexer.next()
            tokens.append(token)
            if token.kind == .end { return tokens }
        }
    }

    private static let durationUnits: [UInt8: Double] = [
        UInt8(ascii: "s"): 1, UInt8(ascii: "m"): 60, UInt8(ascii: "h"): 3_600, UInt8(ascii: "d"): 86_400, UInt8(ascii: "w"): 604_800,
    ]

    mutating func next() throws(ExpressionError) -> Token {
        while position < bytes.count, Self.isSpace(bytes[position]) { position += 1 }
        let start = position
        guard position < bytes.count else { return Token(kind: .end, range: start..<start) }
        let byte = bytes[position]
        if Self.isDigit(byte) { return try number(from: start) }
        if Self.isNameStart(byte) { return name(from: start) }
        if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") { return try string(from: start, quote: byte) }
        for symbol in Token.Symbol.allCases where matches(symbol.rawValue) {
            position += symbol.rawValue.utf8.count
            return Token(kind: .symbol(symbol), range: start..<position)
        }
        if byte == UInt8(ascii: "=") {
            throw ExpressionError(.syntax, "`=` is not an operator", at: start..<start + 1, hint: "compare with `==`")
        }
        if byte == UInt8(ascii: "&") || byte == UInt8(ascii: "|") || byte == UInt8(ascii: "!") {
            let word = byte == UInt8(ascii: "&") ? "and" : byte == UInt8(ascii: "|") ? "or" : "not"
            throw ExpressionError(.syntax, "unexpected `\(Character(Unicode.Scalar(byte)))`", at: start..<start + 1, hint: "write `\(word)`")
        }
        let scalar = String(decoding: bytes[start...].prefix(4), as: UTF8.self).first.map(String.init) ?? "?"
        throw ExpressionError(.syntax, "unexpected character `\(scalar)`", at: start..<start + 1)
    }

    private mutating func number(from start: Int) throws(ExpressionError) -> Token {
        while position < bytes.count, Self.isDigit(bytes[position]) { position += 1 }
        if position + 1 < bytes.count, bytes[position] == UInt8(ascii: "."), Self.isDigit(bytes[position + 1]) {
            position += 1
            while position < bytes.count, Self.isDigit(bytes[position]) { position += 1 }
        }
        let digits = String(decoding: bytes[start..<position], as: UTF8.self)
        guard let value = Double(digits) else {
            throw ExpressionError(.syntax, "`\(digits)` is not a number", at: start..<position)
        }
        if position < bytes.count, let unit = Self.durationUnits[bytes[position]],
            position + 1 >= bytes.count || !Self.isNamePart(bytes[position + 1])
        {
            position += 1
            return Token(kind: .duration(value * unit), range: start..<position)
        }
        if position < bytes.count, Self.isNamePart(bytes[position]) {
            while position < bytes.count, Self.isNamePart(bytes[position]) { position += 1 }
            let text = String(decoding: bytes[start..<position], as: UTF8.self)
            throw ExpressionError(
                .syntax, "`\(text)` is neither a number nor a duration", at: start..<position,
                hint: "durations are a number and one unit: s, m, h, d or w (90s, 30m, 24h, 7d, 2w)"
            )
        }
        return Token(kind: .number(value), range: start..<position)
    }

    private mutating func name(from start: Int) -> Token {
        while position < bytes.count {
            if Self.isNamePart(bytes[position]) {
                position += 1
            } else if bytes[position] == UInt8(ascii: "."), position + 1 < bytes.count, Self.isNamePart(bytes[position + 1]) {
                position += 1
            } else {
                break
            }
        }
        let text = String(decoding: bytes[start..<position], as: UTF8.self)
        if let keyword = Token.Keyword(rawValue: text) { return Token(kind: .keyword(keyword), range: start..<position) }
        return Token(kind: .name(text), range: start..<position)
    }

    private mutating func string(from start: Int, quote: UInt8) throws(ExpressionError) -> Token {
        position += 1
        var text: [UInt8] = []
        while position < bytes.count {
            let byte = bytes[position]
            if byte == quote {
                position += 1
                return Token(kind: .string(String(decoding: text, as: UTF8.self)), range: start..<position)
            }
            if byte == UInt8(ascii: "\\") {
                guard position + 1 < bytes.count else { break }
                let escaped = bytes[position + 1]
                switch escaped {
                case UInt8(ascii: "\\"), UInt8(ascii: "\""), UInt8(ascii: "'"): text.append(escaped)
                case UInt8(ascii: "n"): text.append(UInt8(ascii: "\n"))
                case UInt8(ascii: "t"): text.append(UInt8(ascii: "\t"))
                default:
                    throw ExpressionError(.syntax, "unknown escape `\\\(Character(Unicode.Scalar(escaped)))`", at: position..<position + 2,
                                          hint: "strings know \\\\, \\\", \\', \\n and \\t")
                }
                position += 2
                continue
            }
            text.append(byte)
            position += 1
        }
        throw ExpressionError(.syntax, "the string is not closed", at: start..<bytes.count, hint: "end it with \(Character(Unicode.Scalar(quote)))")
    }

    private func matches(_ text: String) -> Bool {
        var index = position
        for byte in text.utf8 {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
        }
        return true
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    private static func isNameStart(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z")) || byte == UInt8(ascii: "_")
    }

    private static func isNamePart(_ byte: UInt8) -> Bool {
        isNameStart(byte) || isDigit(byte)
    }
}
