import AttestCore
import AttestGuardClient
import AttestGuardClientTesting
import AttestTestSupport
import DeviceSimulator
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization

/// The iOS client library as an app runs it, on the software device, against a gateway of the stack.
extension GatewayStack {
    /// A device of the shipped policy's app: the provider keeps its keys across client "launches".
    func device(_ identifier: String, supported: Bool = true) -> SimulatedAppAttestProvider {
        SimulatedAppAttestProvider(
            device: SimulatedDevice(pki: SimulatorFixtures.pki, identifier: identifier, environment: .development),
            app: AppIdentity(appId: Self.appId),
            supported: supported
        )
    }

    /// One launch of the app: a client for `user` through the gateway on `port`, authenticated as `authenticatedAs`
    /// (the user by default), keeping its key id in `keychainService` of the (Linux stand-in) Keychain.
    func client(
        user: String,
        authenticatedAs: String? = nil,
        provider: SimulatedAppAttestProvider,
        deviceCheck: SimulatedDeviceCheckTokenProvider? = nil,
        keychainService: String,
        port: Int,
        clock: InstantClientClock = InstantClientClock(),
        events: ClientEventLog = ClientEventLog(),
        sessionTokens: Bool = false,
        debugToken: String? = nil
    ) -> AttestGuardClient {
        let credentials = Self.basicAuthorization(authenticatedAs ?? user)
        return AttestGuardClient(
            configuration: .init(
                gateway: Self.gatewayURL(port: port, path: "/attestguard/"), user: user, deviceId: "\(user)-device", clock: clock,
                sessionTokens: sessionTokens, debugToken: debugToken
            ),
            provider: provider,
            deviceCheck: deviceCheck,
            keyStore: Self.keyStore(service: keychainService),
            transport: URLSessionTransport(session: URLSession(configuration: .ephemeral)),
            authorize: { request in request.setValue(credentials, forHTTPHeaderField: "Authorization") },
            onEvent: { events.append($0) }
        )
    }

    /// The Keychain on Linux (the stand-in, in memory); on a Mac, whose data-protection Keychain needs a signed app,
    /// one store in memory per service.
    static func keyStore(service: String) -> any KeyIdStore {
        #if os(Linux)
        KeychainKeyIdStore(service: service)
        #else
        keyStores.withLock { stores in
            if let store = stores[service] { return store }
            let store = InMemoryKeyIdStore()
            stores[service] = store
            return store
        }
        #endif
    }

    private static let keyStores = Mutex<[String: InMemoryKeyIdStore]>([:])

    /// A URL of the gateway on `port`, by a host name the shipped route policy owns.
    static func gatewayURL(port: Int, path: String) -> URL {
        URL(string: "http://localhost:\(port)\(path)")!
    }

    /// An app request to the gateway on `port`, authenticated as `user`.
    static func appRequest(_ method: String, _ target: String, body: String? = nil, user: String, port: Int) -> URLRequest {
        var request = URLRequest(url: gatewayURL(port: port, path: target))
        request.httpMethod = method
        request.httpBody = body.map { Data($0.utf8) }
        if body != nil { request.setValue("application/json", forHTTPHeaderField: "Content-Type") }
        request.setValue(basicAuthorization(user), forHTTPHeaderField: "Authorization")
        return request
    }

    static func basicAuthorization(_ user: String) -> String {
        "Basic " + Data("\(user):password".utf8).base64EncodedString()
    }
}

/// What a client did on its own, for a test to read.
final class ClientEventLog: Sendable {
    private let events = Mutex<[ClientEvent]>([])

    func append(_ event: ClientEvent) { events.withLock { $0.append(event) } }

    var all: [ClientEvent] { events.withLock { $0 } }
}
