import AttestVocabulary
import AttestGuardWire
import AttestGuardEngine
import Hummingbird
import AttestGuardRuntime

/// The DeviceCheck routes: query and validate (`devicecheck:read`), update (`devicecheck:write`). Each calls
/// Apple through the engine's ``DeviceCheckService``; the device token is passed on and never stored, logged or
/// echoed. A query files the answer under its subject only for a key that also holds `devicecheck:write`: a reader
/// learns the bits and changes nothing.
struct DeviceCheckRoutes {
    let engine: Engine
    let body: JSONBody

    func register(on router: Router<AttestGuardRequestContext>, keys: APIKeyRing) {
        let read = router.group("v1/devicecheck").add(middleware: APIKeyMiddleware(ring: keys, scope: .deviceCheckRead))
        read.post("query", use: query)
        read.post("validate", use: validate)
        router.group("v1/devicecheck").add(middleware: APIKeyMiddleware(ring: keys, scope: .deviceCheckWrite))
            .post("update", use: update)
    }

    @Sendable func query(_ request: Request, context: AttestGuardRequestContext) async throws -> Response {
        let input = try await body.decode(DeviceCheckQueryRequestBody.self, from: request)
        try context.requireAccess(to: input.appId)
        let record = try await engine.deviceCheck.query(
            appId: input.appId,
            deviceToken: input.deviceToken,
            subject: DeviceCheckSubject(input.subject),
            environment: try WireFields.environment(input.environment),
            filing: context.apiKey?.scopes.contains(.deviceCheckWrite) == true
        )
        return try JSONResponse.make(DeviceCheckBitsResponseBody(appId: input.appId, bits: record), status: .ok)
    }

    @Sendable func update(_ request: Request, context: AttestGuardRequestContext) async throws -> Response {
        let input = try await body.decode(DeviceCheckUpdateRequestBody.self, from: request)
        try context.requireAccess(to: input.appId)
        let record = try await engine.deviceCheck.update(
            appId: input.appId,
            deviceToken: input.deviceToken,
            subject: DeviceCheckSubject(input.subject),
            bit0: input.bit0,
            bit1: input.bit1,
            environment: try WireFields.environment(input.environment)
        )
        return try JSONResponse.make(DeviceCheckBitsResponseBody(appId: input.appId, bits: record), status: .ok)
    }

    @Sendable func validate(_ request: Request, context: AttestGuardRequestContext) async throws -> Response {
        let input = try await body.decode(DeviceCheckValidateRequestBody.self, from: request)
        try context.requireAccess(to: input.appId)
        let environment = try await engine.deviceCheck.validate(
            appId: input.appId,
            deviceToken: input.deviceToken,
            environment: try WireFields.environment(input.environment)
        )
        return try JSONResponse.make(
            DeviceCheckValidateResponseBody(appId: input.appId, environment: environment.rawValue, valid: true),
            status: .ok
        )
    }
}
