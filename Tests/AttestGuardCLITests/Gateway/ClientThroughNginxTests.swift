import AttestGuardClient
import AttestGuardClientTesting
import AttestGuardWire
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// The iOS client library (`AttestGuardClient`) on the software device, through the shipped nginx configuration, with
/// `attestguard serve` and an upstream behind it: what an app's key lifecycle and signed requests do end to end.
@Suite("Client through nginx", .serialized, .enabled(if: GatewayBinaries.nginxAvailable, "nginx with njs is not installed"))
struct ClientThroughNginxTests {
    @Test("first launch attests once; escaped targets pass byte for byte; a restart, serverUnavailable and a reinstall keep the rules")
    func keyLifecycle() async throws {
        try await GatewayStack.run { stack in
            let nginx = try await stack.startNginx()
            let phone = stack.device("alice-phone")
            let keychain = "lifecycle-\(UUID().uuidString)"
            let clock = InstantClientClock()
            let events = ClientEventLog()
            let launch = stack.client(user: "alice", provider: phone, keychainService: keychain, port: nginx.port, clock: clock, events: events)

            // Three requests at once on first launch: one key, one attestation, three accepted requests (one that loses
            // the counter race to another is signed again).
            let targets = [
                "/api/promos/claim?ref=mail%20blast&tag=%E2%9C%93",
                "/api/orders/caf%C3%A9%20au%20lait/cancel?note=50%25%20off",
                "/api/orders/a%2Fb/cancel",
            ]
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for target in targets {
                    group.addTask {
                        try await launch.send(GatewayStack.appRequest("POST", target, body: #"{"item":"sku-1"}"#, user: "alice", port: nginx.port)).1.statusCode
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses == [200, 200, 200])
            var calls = await phone.calls
            #expect(calls[.generateKey] == 1 && calls[.attestKey] == 1)
            for target in targets {
                let received = stack.received(target)
                #expect(received.count == 1, "\(target) reached the upstream as \(stack.upstream.requests.map(\.target))")
                #expect(received.first?.header("X-AttestGuard-Decision") == "allow")
                #expect(received.first?.body == Array(#"{"item":"sku-1"}"#.utf8))
            }
            let keyId = try #require(stack.received(targets[0]).first?.header("X-AttestGuard-Key-Id"))

            // A restart: a new client on the same device and Keychain signs with the stored key.
            let restarted = stack.client(user: "alice", provider: phone, keychainService: keychain, port: nginx.port, clock: clock, events: events)
            let afterRestart = try await restarted.send(GatewayStack.appRequest("POST", "/api/orders/1/cancel", user: "alice", port: nginx.port))
            #expect(afterRestart.1.statusCode == 200)
            #expect(stack.received("/api/orders/1/cancel").first?.header("X-AttestGuard-Key-Id") == keyId)
            #expect(await phone.calls[.attestKey] == 1)

            // Apple unreachable twice: the same key signs after two waits.
            await phone.failNext(.generateAssertion, with: .serverUnavailable, times: 2)
            let retried = try await restarted.send(GatewayStack.appRequest("POST", "/api/orders/2/cancel", user: "alice", port: nginx.port))
            #expect(retried.1.statusCode == 200)
            #expect(clock.waits == [1, 2])
            #expect(stack.received("/api/orders/2/cancel").first?.header("X-AttestGuard-Key-Id") == keyId)
            #expect(await phone.calls[.attestKey] == 1)

            // A reinstall: the Keychain entry survived, the key did not. Exactly one new attestation.
            await phone.reinstall()
            let reinstalled = stack.client(user: "alice", provider: phone, keychainService: keychain, port: nginx.port, clock: clock, events: events)
            let afterReinstall = try await reinstalled.send(GatewayStack.appRequest("POST", "/api/orders/3/cancel", user: "alice", port: nginx.port))
            #expect(afterReinstall.1.statusCode == 200)
            let newKeyId = try #require(stack.received("/api/orders/3/cancel").first?.header("X-AttestGuard-Key-Id"))
            #expect(newKeyId != keyId)
            calls = await phone.calls
            #expect(calls[.attestKey] == 2 && calls[.generateKey] == 2)
            #expect(events.all.contains(.keyDiscarded(keyId: keyId, reason: "invalid_key")))
            #expect(events.all.filter { if case .attested = $0 { true } else { false } }.count == 2)

            // An upstream answer dressed as a gateway refusal loses its X-AttestGuard-Error: the client does not send again.
            let (_, spoofed) = try await reinstalled.send(GatewayStack.appRequest("POST", "/api/spoof/1", body: "{}", user: "alice", port: nginx.port))
            #expect(spoofed.statusCode == 409 && spoofed.value(forHTTPHeaderField: "X-AttestGuard-Error") == nil)
            #expect(stack.received("/api/spoof/1").count == 1)

            // A body changed after signing is refused by the gateway and never reaches the upstream.
            var tampered = try await reinstalled.signed(GatewayStack.appRequest("POST", "/api/orders/4/cancel", body: #"{"qty":1}"#, user: "alice", port: nginx.port))
            tampered.httpBody = Data(#"{"qty":9}"#.utf8)
            let (body, refused) = try await URLSessionTransport(session: URLSession(configuration: .ephemeral)).send(tampered)
            #expect(refused.statusCode == 422, "\(String(decoding: body, as: UTF8.self))")
            #expect(refused.value(forHTTPHeaderField: "X-AttestGuard-Error") == "request_binding_mismatch")
            #expect(stack.received("/api/orders/4/cancel").isEmpty)
        }
    }

    @Test("a revoked key surfaces; a client claiming another user gets a key bound to its authenticated user")
    func revokedAndImpersonated() async throws {
        try await GatewayStack.run { stack in
            let nginx = try await stack.startNginx()
            let phone = stack.device("bob-phone")
            let bob = stack.client(user: "bob", provider: phone, keychainService: "revoked-\(UUID().uuidString)", port: nginx.port)
            #expect(try await bob.prepare() == .supported)
            let keyId = try #require(await phone.keyIds.first)
            let keyPath = "v1/apps/\(GatewayStack.appId)/keys/\(Base64Text.urlEncoded(Base64Text.decodeEither(keyId) ?? Data()))"
            #expect(try await stack.attestGuard.send("POST", keyPath + "/revoke").status == 200)
            await #expect {
                _ = try await bob.send(GatewayStack.appRequest("POST", "/api/orders/1/cancel", user: "bob", port: nginx.port))
            } throws: { error in
                (error as? AttestGuardClientError)?.code == .keyRevoked
            }
            #expect(stack.received("/api/orders/1/cancel").isEmpty)
            #expect(await phone.calls[.attestKey] == 1)

            // Mallory's client says it is alice; the gateway authenticates mallory, and the key is mallory's.
            let malloryPhone = stack.device("mallory-phone")
            let impostor = stack.client(user: "alice", authenticatedAs: "mallory", provider: malloryPhone, keychainService: "impostor-\(UUID().uuidString)", port: nginx.port)
            #expect(try await impostor.prepare() == .supported)
            let malloryKey = try #require(await malloryPhone.keyIds.first)
            let registered = try await stack.attestGuard.send("GET", "v1/apps/\(GatewayStack.appId)/keys/\(Base64Text.urlEncoded(Base64Text.decodeEither(malloryKey) ?? Data()))")
            #expect(registered.json["userId"] as? String == "mallory", "\(registered.json)")
            // Signed with mallory's key and sent as alice: refused, nothing reaches the upstream.
            let signed = try await impostor.signed(GatewayStack.appRequest("POST", "/api/orders/2/cancel", user: "alice", port: nginx.port))
            let (_, answer) = try await URLSessionTransport(session: URLSession(configuration: .ephemeral)).send(signed)
            #expect(answer.statusCode == 422)
            #expect(answer.value(forHTTPHeaderField: "X-AttestGuard-Error") == "key_user_mismatch")
            #expect(stack.received("/api/orders/2/cancel").isEmpty)
        }
    }

    @Test("a device without App Attest sends its status, validates with DeviceCheck once a session, and is scored, not blocked")
    func unsupportedDevice() async throws {
        try await GatewayStack.run { stack in
            let nginx = try await stack.startNginx()
            let phone = stack.device("carol-phone", supported: false)
            let tokens = SimulatedDeviceCheckTokenProvider(deviceIdentifier: "carol-phone")
            let events = ClientEventLog()
            let carol = stack.client(user: "carol", provider: phone, deviceCheck: tokens, keychainService: "unsupported-\(UUID().uuidString)", port: nginx.port, events: events)
            for attempt in 1...2 {
                let (_, answer) = try await carol.send(GatewayStack.appRequest("GET", "/api/account?view=\(attempt)", user: "carol", port: nginx.port))
                #expect(answer.statusCode == 200)
                let received = try #require(stack.received("/api/account?view=\(attempt)").first)
                #expect(received.header("X-AppAttest-Status") == "unsupported")
                #expect(received.header("X-AttestGuard-Decision") != nil && received.header("X-AttestGuard-Key-Id") == nil)
            }
            #expect(await tokens.tokensGenerated == 1)
            #expect(events.all.filter { $0 == .deviceValidated }.count == 1, "\(events.all)")
            let calls = await phone.calls
            #expect(calls[.generateKey] == nil && calls[.attestKey] == nil)
            // A route that requires an assertion still refuses: the status never replaces one.
            let (_, required) = try await carol.send(GatewayStack.appRequest("POST", "/api/promos/claim", body: "{}", user: "carol", port: nginx.port))
            #expect(required.statusCode == 401)
            #expect(required.value(forHTTPHeaderField: "X-AttestGuard-Error") == "assertion_missing")
            #expect(stack.received("/api/promos/claim").isEmpty)
        }
    }
}
