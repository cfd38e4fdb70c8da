enum EmbeddedOpenAPI { static let document = "openapi: 3.1.0\n" }
