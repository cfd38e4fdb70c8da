// Shared helpers for the fuzz harnesses.
import AttestCore
import Crypto

/// Copies libFuzzer's input into an array (the parsers take `[UInt8]`).
@inline(__always)
public func fuzzInput(_ start: UnsafeRawPointer?, _ count: Int) -> [UInt8] {
    guard let start, count > 0 else { return [] }
    return Array(UnsafeRawBufferPointer(start: start, count: count))
}

/// A harness-detected property violation: prints what broke and traps, so libFuzzer saves the input.
public func fuzzFailure(_ message: String, file: StaticString = #fileID, line: UInt = #line) -> Never {
    print("FUZZ PROPERTY VIOLATED at \(file):\(line): \(message)")
    fatalError(message, file: file, line: line)
}

/// Checks a property of the code under test.
@inline(__always)
public func fuzzCheck(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String, file: StaticString = #fileID, line: UInt = #line) {
    if !condition() { fuzzFailure(message(), file: file, line: line) }
}

extension CBOR {
    /// Whether a NaN float occurs anywhere in the item (NaN != NaN, so equality checks must skip it).
    public var containsNaN: Bool {
        switch self {
        case .float(let value): return value.isNaN
        case .array(let elements): return elements.contains { $0.containsNaN }
        case .map(let entries): return entries.contains { $0.key.containsNaN || $0.value.containsNaN }
        case .tagged(_, let content): return content.containsNaN
        default: return false
        }
    }

    /// Touches every accessor of every nested item (results discarded), to exercise them under ASan.
    public func exerciseAccessors() -> Int {
        var total = typeName.utf8.count
        total &+= bytesValue?.count ?? 0
        total &+= textValue?.utf8.count ?? 0
        total &+= Int(truncatingIfNeeded: integerValue ?? 0)
        total &+= self["fmt"] == nil ? 0 : 1
        total &+= self[Int64(-2)] == nil ? 0 : 1
        total &+= self[Int64.min] == nil ? 0 : 1
        total &+= self[Int64.max] == nil ? 0 : 1
        switch self {
        case .array(let elements):
            for element in elements { total &+= element.exerciseAccessors() }
        case .map(let entries):
            for entry in entries {
                total &+= entry.key.exerciseAccessors() &+ entry.value.exerciseAccessors()
                fuzzCheck(self[entry.key] != nil || entry.key.containsNaN, "map lookup of its own key failed")
            }
        case .tagged(_, let content):
            total &+= content.exerciseAccessors()
        default:
            break
        }
        return total
    }
}

/// Fixed inputs from Tests/Fixtures/apple/real-device-dev-2024 (embedded, so harnesses need no files).
public enum Fixture2024 {
    /// public_key.pem: the attested P-256 key.
    public static let publicKeyPEM = """
        -----BEGIN PUBLIC KEY-----
        MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEBxvOEkYXjdJPbouGYZZwNN1aaK+Y
        tqAC2aStd1CUVnVwk9ntq+U+Jcf3kDaLQTLl7rgPRl3LM8BzvgCz1gNTlw==
        -----END PUBLIC KEY-----
        """

    /// assertion_clientData.json, exactly as signed (no trailing newline).
    public static let clientDataJSON = #"{"action":"getGameLevel","challenge":{"data":[180,247,92,34,12,88,78,108,139,50,170,9,95,240,64,55],"type":"Buffer"},"levelId":1234}"#

    public static let appId = "979F6L8R8M.org.reactjs.native.example.RNClientAttest"

    public static let publicKey: P256.Signing.PublicKey = {
        do { return try P256.Signing.PublicKey(pemRepresentation: publicKeyPEM) } catch {
            fatalError("embedded public_key.pem does not parse: \(error)")
        }
    }()

    public static let clientData: [UInt8] = Array(clientDataJSON.utf8)

    public static let app = AppIdentity(appId: appId)
}
