@testable import AttestGuardRuntime
import Foundation
import AttestTestSupport
import Testing

/// `ConfigurationCheck`: every problem of a configuration at once, each with its key and code; unknown keys with the
/// key most likely meant; unknown `ATTESTGUARD_*` variables as warnings.
@Suite("Configuration: the check")
struct ConfigurationCheckTests {
    static let folder = FileManager.default.temporaryDirectory.appendingPathComponent("attestguard-check-\(UUID().uuidString)")

    static func file(_ text: String, suffix: String = ".yaml") throws -> String {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("\(UUID().uuidString)\(suffix)").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    static func check(_ text: String, suffix: String = ".yaml", environment: [String: String] = [:], allowUnknownKeys: Bool = false) async throws -> ConfigurationCheck {
        try await ConfigurationCheck.run(
            file: try file(text, suffix: suffix), environment: environment, simulatorRoots: SimulatorTrustRoots.deviceSimulator,
            allowUnknownKeys: allowUnknownKeys
        )
    }

    static let valid = """
        mode: simulator
        server: { port: 9090 }
        database: { poolSize: 4, url: "postgres://attestguard@127.0.0.1:5432/attestguard" }
        apps: { names: [shop], shop: { appId: ABCDE12345.com.example.shop, environments: [development] } }
        """

    @Test("a valid file: no problem, no warning, the configuration")
    func validFile() async throws {
        let check = try await Self.check(Self.valid)
        #expect(check.problems.isEmpty, "\(check.problems)")
        #expect(check.warnings.isEmpty)
        #expect(check.configuration?.port == 9090)
    }

    @Test("a misspelled key is refused, naming it and the key meant; load throws it too")
    func misspelledKey() async throws {
        let text = Self.valid.replacingOccurrences(of: "poolSize: 4", with: "poolSiz: 4")
        let check = try await Self.check(text)
        #expect(check.configuration == nil)
        let problem = try #require(check.problems.first)
        #expect(check.problems.count == 1, "\(check.problems)")
        #expect(problem.code == .unknownKey && problem.key == "database.poolSiz" && problem.suggestion == "database.poolSize")
        #expect(problem.description.contains("database.poolSiz") && problem.description.contains("did you mean database.poolSize?"))
        await #expect(throws: problem) {
            try await ServerConfigurationLoader.load(file: try Self.file(text), environment: [:], simulatorRoots: SimulatorTrustRoots.deviceSimulator)
        }
    }

    @Test("unknown keys: the key meant by case, a swap or a section; none when nothing is close; unlisted names")
    func suggestions() async throws {
        let text = """
            mode: simulator
            logLevl: debug
            server: { prot: 1, poolSize: 3, banana: 1 }
            apps:
              names: [shop]
              shop: { appID: ABCDE12345.com.example.shop }
              shp: { appId: ABCDE12345.com.example.shop }
            """
        let check = try await Self.check(text)
        let found = Dictionary(check.problems.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
        // The misspelled appId leaves the app without one.
        #expect(found["apps.shop.appId"]?.code == .missingValue)
        #expect(check.problems.filter { $0.code == .unknownKey }.count == 6, "\(check.problems)")
        #expect(found["logLevl"]?.suggestion == "logLevel")
        #expect(found["server.prot"]?.suggestion == "server.port")
        #expect(found["server.poolSize"]?.suggestion == "database.poolSize")
        #expect(found["server.banana"] != nil && found["server.banana"]?.suggestion == nil)
        #expect(found["apps.shop.appID"]?.suggestion == "apps.shop.appId")
        #expect(found["apps.shp.appId"]?.problem.contains("apps.names does not list shp") == true)
        #expect(found["apps.shp.appId"]?.suggestion == "shop")
        #expect(check.problems.count == 7, "\(check.problems)")
    }

    @Test("every problem at once, each with its key: wrong types and shapes, unreadable files, missing secrets")
    func everyProblem() async throws {
        let text = """
            mode: production
            server: { port: eighty, host: [a, b], maxBodyBytes: { a: 1 } }
            database: { url: "postgres://u@h/d", passwordFile: /nonexistent/password }
            apps: { names: [shop], shop: { appId: ABCDE12345.com.example.shop } }
            apiKeys: { names: [gateway], gateway: { secretFile: /nonexistent/gateway-key, scopes: [verify] } }
            apple: { teamId: ABCDE12345, keyId: KEY1234567, privateKeyFile: /nonexistent/AuthKey.p8 }
            privacy: { hashKeyEnv: ATTESTGUARD_TEST_UNSET_HASH_KEY }
            """
        let check = try await Self.check(text)
        let found = Dictionary(check.problems.map { ($0.key, $0.code) }, uniquingKeysWith: { first, _ in first })
        #expect(check.problems.count == 7, "\(check.problems)")
        #expect(found == [
            "server.port": .invalidValue, "server.host": .invalidValue, "server.maxBodyBytes": .invalidValue,
            "database.passwordFile": .unreadableFile, "apiKeys.gateway.secretFile": .unreadableFile,
            "apple.privateKeyFile": .unreadableFile, "privacy.hashKeyEnv": .missingSecret,
        ], "\(check.problems)")
        #expect(check.problems.first { $0.key == "server.host" }?.problem == "must be one value, not a list")
        #expect(check.problems.first { $0.key == "server.maxBodyBytes" }?.problem == "must be one value, not a mapping")
        #expect(check.configuration == nil)
    }

    @Test("a required secret that is not given, and one whose variable is unset")
    func missingSecrets() async throws {
        let text = """
            mode: simulator
            apiKeys: { names: [a, b], a: { scopes: [verify] }, b: { secretEnv: ATTESTGUARD_TEST_UNSET_KEY, scopes: [verify] } }
            """
        let check = try await Self.check(text)
        #expect(check.problems.map(\.key) == ["apiKeys.a.secretFile", "apiKeys.b.secretEnv"], "\(check.problems)")
        #expect(check.problems.allSatisfy { $0.code == .missingSecret })
    }

    @Test("allowed unknown keys are warnings, and the configuration is used")
    func allowedUnknownKeys() async throws {
        let check = try await Self.check(Self.valid + "\nfutureFeature: { enabled: true }\n", allowUnknownKeys: true)
        #expect(check.problems.isEmpty)
        #expect(check.warnings.map(\.key) == ["futureFeature.enabled"])
        #expect(check.configuration?.warnings.map(\.code) == [.unknownKey])
    }

    @Test("an unknown ATTESTGUARD_ variable is a warning naming the variable meant; the variables secrets name are not")
    func unknownVariables() async throws {
        let text = Self.valid + "\napiKeys: { names: [gateway], gateway: { secretEnv: ATTESTGUARD_GATEWAY_SECRET, scopes: [verify] } }\n"
        let environment = [
            "ATTESTGUARD_SERVER_PROT": "1", "ATTESTGUARD_GATEWAY_SECRET": "a-gateway-secret-0123456789",
            "ATTESTGUARD_APPS_SHOP_MODE": "monitor", "ATTESTGUARD_SERVER_PORT": "9091", "OTHER_VARIABLE": "x",
        ]
        let check = try await Self.check(text, environment: environment)
        #expect(check.problems.isEmpty, "\(check.problems)")
        #expect(check.warnings.map(\.key) == ["ATTESTGUARD_SERVER_PROT"])
        #expect(check.warnings.first?.code == .unknownVariable && check.warnings.first?.suggestion == "ATTESTGUARD_SERVER_PORT")
        #expect(check.configuration?.port == 9091 && check.configuration?.warnings.count == 1)
    }

    @Test("a JSON file's numbers and booleans are read, and its unknown keys named")
    func jsonValues() async throws {
        let json = #"{"mode":"simulator","server":{"port":9092,"maxBodyBytes":4096},"database":{"autoMigrate":true},"clockSkewSecs":5}"#
        let check = try await Self.check(json, suffix: ".json")
        #expect(check.problems.map(\.key) == ["clockSkewSecs"], "\(check.problems)")
        #expect(check.problems.first?.suggestion == "clockSkewSeconds")
        let valid = try await Self.check(json.replacingOccurrences(of: #","clockSkewSecs":5"#, with: ""), suffix: ".json")
        let configuration = try #require(valid.configuration, "\(valid.problems)")
        #expect(configuration.port == 9092 && configuration.maxBodyBytes == 4096 && configuration.autoMigrate)
    }

    @Test("the start-up summary names the Apple hosts used: those of the apps' environments, overrides included")
    func summaryHosts() async throws {
        let text = """
            mode: simulator
            apps: { names: [shop], shop: { appId: ABCDE12345.com.example.shop, environments: [development] } }
            apple:
              teamId: ABCDE12345
              keyId: KEY1234567
              privateKeyEnv: ATTESTGUARD_TEST_P8
              hosts: { receiptsDevelopment: "http://127.0.0.1:8090", deviceCheckDevelopment: "http://127.0.0.1:8091" }
            """
        let check = try await Self.check(text, environment: ["ATTESTGUARD_TEST_P8": AppleConfigurationTests.keyPEM])
        let summary = try #require(check.configuration, "\(check.problems)").summary.joined(separator: "\n")
        #expect(summary.contains("receipts development=http://127.0.0.1:8090 devicecheck development=http://127.0.0.1:8091"), "\(summary)")
        #expect(!summary.contains("apple.com"), "\(summary)")
    }

    @Test("the nearest name: close ones only, none when two are equally near")
    func nearestName() {
        #expect(NearestName.nearest(to: "server.prot", among: ["server.port", "server.host"]) == "server.port")
        #expect(NearestName.nearest(to: "mode", among: ["logLevel"]) == nil)
        #expect(NearestName.nearest(to: "abcd", among: ["abce", "abcf"]) == nil)
        #expect(NearestName.editDistance("ab", "ba") == 1 && NearestName.editDistance("", "abc") == 3)
    }
}
