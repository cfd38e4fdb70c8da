// HTTPBenchPrep: prepares the HTTP benchmark (Benchmarks/http.sh) against a running `attestguard serve`.
//
// For each of K simulated devices (one App Attest key each, user `bench-user-<i>`), it
//   1. issues an attestation challenge through the API (POST /v1/challenges) and registers the key
//      (POST /v1/attestations, must be 201),
//   2. issues M assertion challenges bound to the user and key (POST /v1/challenges, purpose assertion, keyId),
//   3. mints M assertions for them in counter order (counter 1...M) and writes them as `POST /v1/assertions`
//      request bodies, one JSON object per line, in counter order, to OUT/key-<i>.txt.
// Each body is valid exactly once: replayed in file order by one connection, every one is accepted (200).
// With --session-tokens-via GATEWAY_KEY_ENV it first exchanges one assertion per key for a session token, as the app
// does through the gateway (POST /v1/app/session-tokens with the gateway's key from that variable, the app-facing
// headers a gateway sets and the assertion over `POST /attestguard/session-tokens`), and writes it to OUT/token-<i>.txt.
// With --score-keys S it also attests S more keys (user `bench-score-user-<i>`, device `bench-score-device-<i>`) and
// writes one `POST /v1/score` body per key (key, user, device, an IP shared by 4 keys, an action) to
// OUT/score.txt; score bodies are not single-use, so wrk sends them round and round.
//
// Usage: HTTPBenchPrep --url http://127.0.0.1:PORT --keys K --per-key M --out DIR [--score-keys S]
//                      [--seed attestguard-bench] [--app-id ABCDE12345.com.example.bench] [--api-key-env BENCH_API_KEY]
//                      [--session-tokens-via GATEWAY_KEY]
// The seed must equal the server's `simulator.seed` (the server trusts that simulated PKI only).

import DeviceSimulator
import AttestCore
import AttestGuardWire
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

struct Options {
    var url = "http://127.0.0.1:8088"
    var keys = 16
    var perKey = 1_000
    var scoreKeys = 0
    var out = "http-bench-bodies"
    var seed = "attestguard-bench"
    var appId = "ABCDE12345.com.example.bench"
    var apiKeyEnv = "BENCH_API_KEY"
    /// The variable holding the gateway key session tokens are exchanged with; none: no tokens.
    var sessionTokensVia: String?

    static func parse(_ arguments: [String]) -> Options {
        var options = Options()
        var iterator = arguments.makeIterator()
        func value(_ name: String) -> String {
            guard let value = iterator.next() else { fail("\(name) needs a value") }
            return value
        }
        func count(_ name: String) -> Int {
            guard let number = Int(value(name)), number > 0 else { fail("\(name) needs a positive integer") }
            return number
        }
        while let argument = iterator.next() {
            switch argument {
            case "--url": options.url = value(argument)
            case "--keys": options.keys = count(argument)
            case "--per-key": options.perKey = count(argument)
            case "--score-keys": options.scoreKeys = count(argument)
            case "--out": options.out = value(argument)
            case "--seed": options.seed = value(argument)
            case "--app-id": options.appId = value(argument)
            case "--api-key-env": options.apiKeyEnv = value(argument)
            case "--session-tokens-via": options.sessionTokensVia = value(argument)
            case "--help", "-h":
                print("usage: HTTPBenchPrep --url URL --keys K --per-key M --out DIR [--score-keys S] [--seed S] [--app-id A] [--api-key-env VAR]")
                exit(0)
            default: fail("unknown argument \(argument)")
            }
        }
        return options
    }
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("HTTPBenchPrep: \(message)\n".utf8))
    exit(1)
}

struct ChallengeBody: Encodable {
    var appId: String
    var purpose: String
    var userId: String
    var keyId: String?
}

struct ChallengeAnswer: Decodable {
    var challenge: String
}

/// A small JSON-over-HTTP client: one URLSession with enough connections for K concurrent callers.
struct API: Sendable {
    let base: URL
    let apiKey: String
    let session: URLSession

    init(base: URL, apiKey: String, connections: Int) {
        self.base = base
        self.apiKey = apiKey
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = max(connections, 1)
        configuration.timeoutIntervalForRequest = 60
        session = URLSession(configuration: configuration)
    }

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    func post(_ path: String, _ body: some Encodable, expecting status: Int) async throws -> Data {
        var request = URLRequest(url: base.appendingPathComponent(path))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("Bearer \(apiKey)", forHTTPHeaderField: "Authorization")
        request.httpBody = try Self.encoder.encode(body)
        let (data, response) = try await session.data(for: request)
        let code = (response as? HTTPURLResponse)?.statusCode ?? -1
        guard code == status else {
            fail("POST \(path) answered \(code), expected \(status): \(String(decoding: data, as: UTF8.self))")
        }
        return data
    }

    /// Exchanges `signed` for a session token as a gateway passes the app's request on.
    func sessionToken(_ signed: AssertionRequestBody, user: String, gatewayKey: String) async throws -> String {
        var request = URLRequest(url: base.appendingPathComponent("v1/app/session-tokens"))
        request.httpMethod = "POST"
        request.setValue("Bearer \(gatewayKey)", forHTTPHeaderField: "Authorization")
        request.setValue("/attestguard/session-tokens", forHTTPHeaderField: "X-Original-URI")
        request.setValue(user, forHTTPHeaderField: "X-AttestGuard-User")
        request.setValue("127.0.0.1", forHTTPHeaderField: "X-AttestGuard-Client-IP")
        for (name, value) in signed.appAttestHeaders { request.setValue(value, forHTTPHeaderField: name.rawValue) }
        let (data, response) = try await session.data(for: request)
        let code = (response as? HTTPURLResponse)?.statusCode ?? -1
        guard code == 201, let token = (try? JSONSerialization.jsonObject(with: data) as? [String: Any])?["token"] as? String else {
            fail("POST v1/app/session-tokens answered \(code): \(String(decoding: data, as: UTF8.self))")
        }
        return token
    }

    func challenge(_ body: ChallengeBody) async throws -> String {
        let data = try await post("v1/challenges", body, expecting: 201)
        return try JSONDecoder().decode(ChallengeAnswer.self, from: data).challenge
    }
}

/// Attests one simulated key for `userId` on `device` through the API; returns the app client and the key id.
func attest(
    device identifier: String, userId: String, options: Options, pki: SimulatedApplePKI, api: API
) async throws -> (SimulatedAppClient, String) {
    let device = SimulatedDevice(pki: pki, identifier: identifier, environment: .development)
    let client = SimulatedAppClient(device: device, app: AppIdentity(appId: options.appId), keyIndex: 0, userId: userId)
    let challenge = try await api.challenge(ChallengeBody(appId: options.appId, purpose: "attestation", userId: userId))
    let attestation = try client.attestation(challenge: challenge, at: Date())
    _ = try await api.post("v1/attestations", attestation, expecting: 201)
    return (client, attestation.keyId)
}

/// Attests key `index` and writes its M assertion bodies; returns the number written.
func prepareKey(_ index: Int, options: Options, pki: SimulatedApplePKI, api: API) async throws -> Int {
    let userId = "bench-user-\(index)"
    var (client, keyId) = try await attest(device: "bench-device-\(index)", userId: userId, options: options, pki: pki, api: api)
    if let variable = options.sessionTokensVia {
        // Counter 1 buys the token, before the M assertions (counters 2...M+1) are minted.
        guard let gatewayKey = ProcessInfo.processInfo.environment[variable], !gatewayKey.isEmpty else { fail("set the gateway key in $\(variable)") }
        let challenge = try await api.challenge(ChallengeBody(appId: options.appId, purpose: "assertion", userId: userId, keyId: keyId))
        let signed = client.assertion(challenge: challenge, method: "POST", path: "/attestguard/session-tokens", body: Data())
        let token = try await api.sessionToken(signed, user: userId, gatewayKey: gatewayKey)
        try Data((token + "\n").utf8).write(to: URL(fileURLWithPath: options.out).appendingPathComponent("token-\(index).txt"))
    }

    // Challenges first (their order does not matter), then the assertions in counter order.
    var challenges: [String] = []
    challenges.reserveCapacity(options.perKey)
    for _ in 0..<options.perKey {
        challenges.append(
            try await api.challenge(ChallengeBody(appId: options.appId, purpose: "assertion", userId: userId, keyId: keyId))
        )
    }
    var file = Data()
    file.reserveCapacity(options.perKey * 700)
    for challenge in challenges {
        file.append(try API.encoder.encode(client.assertion(challenge: challenge)))
        file.append(UInt8(ascii: "\n"))
    }
    let path = URL(fileURLWithPath: options.out).appendingPathComponent("key-\(index).txt")
    try file.write(to: path)
    return challenges.count
}

/// A `POST /v1/score` request body as a gateway sends it.
struct ScoreBody: Encodable {
    var appId: String
    var keyId: String
    var userId: String
    var deviceId: String
    var ip: String
    var action: String
}

/// Attests score key `index` and returns its `POST /v1/score` body (one JSON line).
func prepareScoreKey(_ index: Int, options: Options, pki: SimulatedApplePKI, api: API) async throws -> Data {
    let userId = "bench-score-user-\(index)"
    let deviceId = "bench-score-device-\(index)"
    let (_, keyId) = try await attest(device: deviceId, userId: userId, options: options, pki: pki, api: api)
    let actions = ["purchase", "login", "purchase", "claim_promo"]
    let body = ScoreBody(
        appId: options.appId, keyId: keyId, userId: userId, deviceId: deviceId,
        ip: "10.\(index / 1024 % 256).\(index / 4 % 256).\(index % 4 + 1)", action: actions[index % actions.count]
    )
    return try API.encoder.encode(body)
}

@main
struct HTTPBenchPrep {
    static func main() async throws {
        let options = Options.parse(Array(CommandLine.arguments.dropFirst()))
        guard let base = URL(string: options.url) else { fail("bad --url \(options.url)") }
        guard let apiKey = ProcessInfo.processInfo.environment[options.apiKeyEnv], !apiKey.isEmpty else {
            fail("set the API key in $\(options.apiKeyEnv)")
        }
        try FileManager.default.createDirectory(atPath: options.out, withIntermediateDirectories: true)
        let pki = try SimulatedApplePKI(seed: options.seed)
        let api = API(base: base, apiKey: apiKey, connections: options.keys)

        let start = Date()
        let written = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<options.keys {
                group.addTask { try await prepareKey(index, options: options, pki: pki, api: api) }
            }
            var total = 0
            for try await count in group { total += count }
            return total
        }
        let seconds = Date().timeIntervalSince(start)

        if options.scoreKeys > 0 {
            let scoreStart = Date()
            let bodies = try await withThrowingTaskGroup(of: (Int, Data).self) { group in
                var next = 0
                var bodies = [Data](repeating: Data(), count: options.scoreKeys)
                // At most `keys` attestations in flight, as many as the session has connections.
                while next < min(options.keys, options.scoreKeys) {
                    let index = next
                    group.addTask { (index, try await prepareScoreKey(index, options: options, pki: pki, api: api)) }
                    next += 1
                }
                for try await (index, body) in group {
                    bodies[index] = body
                    if next < options.scoreKeys {
                        let index = next
                        group.addTask { (index, try await prepareScoreKey(index, options: options, pki: pki, api: api)) }
                        next += 1
                    }
                }
                return bodies
            }
            var file = Data()
            for body in bodies {
                file.append(body)
                file.append(UInt8(ascii: "\n"))
            }
            try file.write(to: URL(fileURLWithPath: options.out).appendingPathComponent("score.txt"))
            print(
                String(
                    format: "HTTPBenchPrep: %d score keys attested in %.1f s -> %@/score.txt",
                    options.scoreKeys, Date().timeIntervalSince(scoreStart), options.out
                )
            )
        }
        print(
            String(
                format: "HTTPBenchPrep: %d keys attested, %d assertion challenges issued and %d assertions minted in %.1f s (%.0f challenges/s) -> %@",
                options.keys, written, written, seconds, Double(written) / seconds, options.out
            )
        )
    }
}
