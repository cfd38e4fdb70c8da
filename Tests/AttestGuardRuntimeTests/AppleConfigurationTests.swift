import AppleServices
import AttestCore
import AttestGuardRuntime
import Crypto
import Foundation
import AttestTestSupport
import Testing

@Suite("Configuration: Apple services and receipt refresh")
struct AppleConfigurationTests {
    static let keyPEM = P256.Signing.PrivateKey().pemRepresentation

    func write(_ text: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("attestguard-apple-\(UUID().uuidString).yaml").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test("credentials from a key file, simulator hosts, refresh pacing; the key never reaches the summary")
    func appleAndRefresh() async throws {
        let keyFile = try write(Self.keyPEM)
        let yaml = """
            mode: simulator
            apple:
              teamId: ABCDE12345
              keyId: KEY1234567
              privateKeyFile: \(keyFile)
              requestTimeoutMilliseconds: 2500
              hosts: { receiptsDevelopment: "http://127.0.0.1:8090/", deviceCheckDevelopment: "http://127.0.0.1:8091" }
            receipts:
              refresh: { intervalHours: 12, firstRedemptionDelaySeconds: 5, concurrency: 8, leaseSeconds: 30, maxAttempts: 3,
                         developmentRequestsPerSecond: 0, enabled: false }
            """
        let configuration = try await ServerConfigurationLoader.load(file: try write(yaml), environment: [:])
        let apple = configuration.apple
        #expect(apple.credentials?.teamId == "ABCDE12345")
        #expect(apple.credentials?.keyId == "KEY1234567")
        #expect(apple.receipts.baseURL(for: .development) == "http://127.0.0.1:8090")
        #expect(apple.receipts.baseURL(for: .production) == AppleEndpoint.receiptRedemption.productionBaseURL)
        #expect(apple.deviceCheck.baseURL(for: .development) == "http://127.0.0.1:8091")
        #expect(apple.receipts.timeout == .milliseconds(2_500))
        let refresh = configuration.engine.receiptRefresh
        #expect(refresh.refreshInterval == .seconds(12 * 3_600))
        #expect(refresh.firstRedemptionDelay == .seconds(5))
        #expect(refresh.concurrency == 8 && refresh.leaseDuration == .seconds(30) && refresh.maximumAttempts == 3)
        #expect(refresh.requestsPerSecond[.development] == 0 && refresh.requestsPerSecond[.production] == 500)
        #expect(configuration.receiptRefreshEnabled == false)
        let summary = configuration.summary.joined(separator: "\n")
        #expect(summary.contains("apple=team ABCDE12345 key KEY1234567"))
        #expect(!summary.contains("PRIVATE KEY") && !String(describing: apple.credentials as Any).contains("PRIVATE KEY"))
    }

    @Test("without apple.* nothing calls Apple, and Apple's own hosts are the defaults")
    func noApple() async throws {
        let configuration = try await ServerConfigurationLoader.load(file: try write("mode: simulator"), environment: [:])
        #expect(configuration.apple.credentials == nil)
        #expect(configuration.apple.receipts == .receiptRedemption)
        #expect(configuration.apple.deviceCheck == .deviceCheck)
        #expect(configuration.receiptRefreshEnabled)
    }

    @Test("refused, naming the key: other hosts in production, an inline key, bad ids, a missing key, bad pacing", arguments: [
        ("mode: production\napple: { hosts: { receiptsProduction: \"http://127.0.0.1:1\" } }", "apple.hosts.receiptsProduction"),
        ("mode: simulator\napple: { hosts: { receiptsDevelopment: \"ftp://fake\" } }", "apple.hosts.receiptsDevelopment"),
        ("mode: simulator\napple: { teamId: ABCDE12345, keyId: KEY1234567, privateKey: inline }", "apple.privateKey"),
        ("mode: simulator\napple: { teamId: abc, keyId: KEY1234567, privateKeyEnv: NOPE }", "apple.teamId"),
        ("mode: simulator\napple: { teamId: ABCDE12345, keyId: KEY12, privateKeyEnv: NOPE }", "apple.keyId"),
        ("mode: simulator\napple: { teamId: ABCDE12345, keyId: KEY1234567 }", "apple.privateKeyFile"),
        ("mode: simulator\napple: { teamId: ABCDE12345, keyId: KEY1234567, privateKeyEnv: ATTESTGUARD_TEST_UNSET_P8 }", "apple.privateKeyEnv"),
        ("mode: simulator\napple: { teamId: ABCDE12345, keyId: KEY1234567, privateKeyFile: /nonexistent/AuthKey.p8 }", "apple.privateKeyFile"),
        ("mode: simulator\nreceipts: { refresh: { concurrency: 0 } }", "receipts.refresh.concurrency"),
        ("mode: simulator\nreceipts: { refresh: { intervalHours: soon } }", "receipts.refresh.intervalHours"),
        ("mode: simulator\nreceipts: { refresh: { enabled: maybe } }", "receipts.refresh.enabled"),
    ])
    func refused(yaml: String, key: String) async throws {
        do {
            _ = try await ServerConfigurationLoader.load(file: try write(yaml), environment: [:])
            Issue.record("accepted: \(yaml)")
        } catch let error as ConfigurationError {
            #expect(error.key == key, "\(error)")
        }
    }
}
