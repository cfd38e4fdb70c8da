/// How the running app was distributed and signed, as iOS 27's App Attest reports it in the authenticator
/// extension `apple_validation_category_01` of attestations and assertions.
///
/// The values are the operating system's code-signing validation categories: the kernel's
/// `CS_VALIDATION_CATEGORY_*` constants (`<kern/cs_blobs.h>`), which Apple documents as
/// `LightweightCodeRequirements.ValidationCategory.Value` (developer.apple.com/documentation/
/// lightweightcoderequirements/validationcategory/value): platform, TestFlight, development, App Store, enterprise,
/// Developer ID, local signing, Rosetta, out-of-process JIT, none. App Attest writes the number as four bytes,
/// little-endian (Apple's validation-guide sample carries `h'01000000'`, category 1). A number this build does not
/// know is kept as ``unknown(_:)``, never refused: Apple adds categories with new operating systems.
public enum ValidationCategory: Sendable, Hashable, CustomStringConvertible {
    /// 0: no valid category (`CS_VALIDATION_CATEGORY_INVALID`).
    case invalid
    /// 1: signed by Apple or allowed by a loaded trust cache (`CS_VALIDATION_CATEGORY_PLATFORM`).
    case platform
    /// 2: distributed through TestFlight (`CS_VALIDATION_CATEGORY_TESTFLIGHT`).
    case testFlight
    /// 3: signed with a development certificate (`CS_VALIDATION_CATEGORY_DEVELOPMENT`).
    case development
    /// 4: distributed through the App Store (`CS_VALIDATION_CATEGORY_APP_STORE`).
    case appStore
    /// 5: distributed through the Apple Developer Enterprise Program (`CS_VALIDATION_CATEGORY_ENTERPRISE`).
    case enterprise
    /// 6: signed with a Developer ID certificate (`CS_VALIDATION_CATEGORY_DEVELOPER_ID`).
    case developerId
    /// 7: signed locally on the device (`CS_VALIDATION_CATEGORY_LOCAL_SIGNING`).
    case localSigning
    /// 8: a Rosetta-translated executable (`CS_VALIDATION_CATEGORY_ROSETTA`).
    case rosetta
    /// 9: an out-of-process JIT executable (`CS_VALIDATION_CATEGORY_OOPJIT`).
    case outOfProcessJIT
    /// 10: no validation category (`CS_VALIDATION_CATEGORY_NONE`).
    case none
    /// A number this build does not know.
    case unknown(UInt32)

    /// The categories this build knows, in number order.
    public static let known: [ValidationCategory] = [
        .invalid, .platform, .testFlight, .development, .appStore, .enterprise, .developerId, .localSigning, .rosetta,
        .outOfProcessJIT, .none,
    ]

    /// The category Apple numbers `number`.
    public init(number: UInt32) {
        self = number < UInt32(Self.known.count) ? Self.known[Int(number)] : .unknown(number)
    }

    /// The category a ``name`` names (`app_store`, `unknown(12)`), or `nil` for any other text. `unknown(N)` is
    /// Apple's number N whatever this build knows of it, so that a name written before a release learned to name N
    /// (in a configuration, a stored policy) still means N after it: `unknown(3)` is `development`.
    public init?(name: String) {
        if let match = Self.known.first(where: { $0.name == name }) {
            self = match
            return
        }
        guard name.hasPrefix("unknown("), name.hasSuffix(")"), let number = UInt32(name.dropFirst("unknown(".count).dropLast()) else {
            return nil
        }
        self.init(number: number)
    }

    /// Apple's number for the category.
    public var number: UInt32 {
        switch self {
        case .invalid: 0
        case .platform: 1
        case .testFlight: 2
        case .development: 3
        case .appStore: 4
        case .enterprise: 5
        case .developerId: 6
        case .localSigning: 7
        case .rosetta: 8
        case .outOfProcessJIT: 9
        case .none: 10
        case .unknown(let number): number
        }
    }

    /// The stable name the API, the CLI and rules use: `app_store`, `test_flight`, ... and `unknown(N)` for a number
    /// this build does not know (the store keeps ``number``, so a later build names old keys by its own list).
    public var name: String {
        switch self {
        case .invalid: "invalid"
        case .platform: "platform"
        case .testFlight: "test_flight"
        case .development: "development"
        case .appStore: "app_store"
        case .enterprise: "enterprise"
        case .developerId: "developer_id"
        case .localSigning: "local_signing"
        case .rosetta: "rosetta"
        case .outOfProcessJIT: "out_of_process_jit"
        case .none: "none"
        case .unknown(let number): "unknown(\(number))"
        }
    }

    public var description: String { name }
}
