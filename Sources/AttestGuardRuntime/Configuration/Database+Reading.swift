import AttestGuardStore
import AttestGuardPostgres
import Foundation

extension ServerConfiguration.Database {
    /// Reads `database.*`: PostgreSQL when `url` is set (its password from `passwordFile` / `passwordEnv`, never
    /// from the file's URL), else the SQLite file at `sqlitePath`.
    /// - Parameter fileValues: `database.*` of the configuration file alone, to refuse a password written there
    ///   (the environment's `ATTESTGUARD_DATABASE_URL` may carry one).
    init(reading values: ConfigValues, fileValues: ConfigValues?, environment: [String: String]) throws {
        for key in ["url", "readUrl"] {
            if let fileURL = fileValues?.string(key), (try? PostgresURL(parsing: fileURL))?.password != nil {
                throw ConfigurationError(key: "database.\(key)", "must not carry a password in the file: use database.passwordFile, database.passwordEnv or ATTESTGUARD_DATABASE_\(key == "url" ? "URL" : "READ_URL")")
            }
        }
        guard var url = values.string("url") else {
            self = .sqlite(path: values.string("sqlitePath", default: "attestguard.sqlite"))
            return
        }
        let password = try values.secret("password", environment: environment)
        var readURL = values.string("readUrl")
        if let password {
            // The replica takes the primary's password unless its URL (from the environment) carries its own.
            do {
                url = try PostgresURL(parsing: url).replacingPassword(password).string
            } catch {
                throw ConfigurationError(key: "database.url", error.detail)
            }
            if let replica = readURL.flatMap({ try? PostgresURL(parsing: $0) }), replica.password == nil {
                readURL = replica.replacingPassword(password).string
            }
        }
        let poolSize = try values.int("poolSize", default: 16, range: 1...500)
        let keepAliveSeconds = try values.int("keepAliveSeconds", default: 0, range: 0...86_400)
        var postgres = ServerConfiguration.Postgres(
            url: url,
            poolSize: poolSize,
            minimumConnections: try values.int("minimumConnections", default: poolSize, range: 0...poolSize),
            keepAlive: keepAliveSeconds == 0 ? nil : .seconds(keepAliveSeconds),
            timeout: .milliseconds(try values.int("timeoutMilliseconds", default: 5_000, range: 100...600_000))
        )
        postgres.pooler = try values.choice("pooler", default: PostgresPooler.none)
        postgres.readURL = readURL
        postgres.readPoolSize = try values.int("readPoolSize", default: 4, range: 1...500)
        postgres.readMaximumLag = .seconds(try values.int("readMaxLagSeconds", default: 30, range: 1...86_400))
        postgres.batchSize = try values.int("batchSize", default: PostgresStoreConfiguration.defaultBatchSize, range: 1...256)
        postgres.batchesInFlight = try values.int("batchesInFlight", default: PostgresStoreConfiguration.defaultBatchesInFlight, range: 1...poolSize)
        try Self.checkPooler(of: postgres, in: values)
        self = .postgres(postgres)
    }

    /// Refuses a URL the pooler cannot carry (``PostgresStoreConfiguration/checkPooler()``) as a problem of
    /// `database.url`; a URL that does not parse is left to the store's opening, which names what is wrong with it.
    private static func checkPooler(of postgres: ServerConfiguration.Postgres, in values: ConfigValues) throws {
        guard var store = try? PostgresStoreConfiguration(url: postgres.url) else { return }
        store.pooler = postgres.pooler
        do {
            try store.checkPooler()
        } catch let error as StoreError {
            try values.report(ConfigurationError(key: values.path("url"), error.detail))
        }
    }
}

extension ServerConfiguration.TLSFiles {
    /// Reads `server.tls.*`; `nil` when no certificate chain is configured (plain HTTP).
    init?(reading values: ConfigValues) throws {
        guard let certificate = values.string("certificateChainPath") else { return nil }
        self.init(certificateChainPath: certificate, privateKeyPath: try values.requiredString("privateKeyPath"))
    }
}
