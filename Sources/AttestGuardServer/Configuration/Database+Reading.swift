import AttestGuardStorage
import Foundation

extension ServerConfiguration.Database {
    /// Reads `database.*`: PostgreSQL when `url` is set (its password from `passwordFile` / `passwordEnv`, never
    /// from the file's URL), else the SQLite file at `sqlitePath`.
    /// - Parameter fileValues: `database.*` of the configuration file alone, to refuse a password written there
    ///   (the environment's `ATTESTGUARD_DATABASE_URL` may carry one).
    init(reading values: ConfigValues, fileValues: ConfigValues?, environment: [String: String]) throws {
        if let fileURL = fileValues?.string("url"), (try? PostgresURL(parsing: fileURL))?.password != nil {
            throw ConfigurationError(key: "database.url", "must not carry a password in the file: use database.passwordFile, database.passwordEnv or ATTESTGUARD_DATABASE_URL")
        }
        guard var url = values.string("url") else {
            self = .sqlite(path: values.string("sqlitePath", default: "attestguard.sqlite"))
            return
        }
        if let password = try values.secret("password", environment: environment) {
            do {
                url = try PostgresURL(parsing: url).replacingPassword(password).string
            } catch {
                throw ConfigurationError(key: "database.url", error.detail)
            }
        }
        let poolSize = try values.int("poolSize", default: 16, range: 1...500)
        let keepAliveSeconds = try values.int("keepAliveSeconds", default: 0, range: 0...86_400)
        self = .postgres(
            ServerConfiguration.Postgres(
                url: url,
                poolSize: poolSize,
                minimumConnections: try values.int("minimumConnections", default: poolSize, range: 0...poolSize),
                keepAlive: keepAliveSeconds == 0 ? nil : .seconds(keepAliveSeconds),
                timeout: .milliseconds(try values.int("timeoutMilliseconds", default: 5_000, range: 100...600_000))
            )
        )
    }
}

extension ServerConfiguration.TLSFiles {
    /// Reads `server.tls.*`; `nil` when no certificate chain is configured (plain HTTP).
    init?(reading values: ConfigValues) throws {
        guard let certificate = values.string("certificateChainPath") else { return nil }
        self.init(certificateChainPath: certificate, privateKeyPath: try values.requiredString("privateKeyPath"))
    }
}
