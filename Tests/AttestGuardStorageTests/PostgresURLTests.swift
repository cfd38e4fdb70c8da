import AttestGuardStore
import AttestGuardPostgres
import Testing

/// `database.url` as libpq reads it: several hosts, IPv6 in brackets, the password kept out of logs, and the
/// host choice (`target_session_attrs`) limited to what the URL is for.
@Suite("PostgreSQL URLs")
struct PostgresURLTests {
    @Test("several hosts, in order, with and without ports")
    func severalHosts() throws {
        let url = try PostgresURL(parsing: "postgres://app:s%40cret@db1:5433,db2,[::1]:6000/risk?sslmode=disable&target_session_attrs=read-write")
        #expect(url.hosts == [.init(name: "db1", port: 5433), .init(name: "db2", port: 5432), .init(name: "::1", port: 6000)])
        #expect(url.user == "app")
        #expect(url.password == "s@cret")
        #expect(url.database == "risk")
        #expect(url.parameter("sslmode") == "disable")
        #expect(url.redacted == "postgres://app:***@db1:5433,db2:5432,[::1]:6000/risk?sslmode=disable&target_session_attrs=read-write")
        #expect(try PostgresURL(parsing: url.string) == url, "the text parses back to the same URL")
    }

    @Test("a password is set and replaced without touching the hosts")
    func password() throws {
        let url = try PostgresURL(parsing: "postgresql://app@h1,h2/db").replacingPassword("p@ss:w/rd")
        #expect(try PostgresURL(parsing: url.string).password == "p@ss:w/rd")
        #expect(url.hosts.count == 2)
        #expect(!url.redacted.contains("p@ss"))
    }

    @Test("malformed URLs are refused with a reason", arguments: [
        "mysql://app@h/db", "postgres://h/db", "postgres://app@/db", "postgres://app@h1,,h2/db",
        "postgres://app@h:0/db", "postgres://app@h:port/db", "postgres://app@[::1/db", "postgres://:pw@h/db",
    ])
    func refused(text: String) {
        let error = #expect(throws: StoreError.self) { try PostgresURL(parsing: text) }
        #expect(error?.code == .invalidConfiguration)
    }

    @Test("the primary's URL takes read-write only; a replica's defaults to any host")
    func targets() throws {
        #expect(try PostgresStoreConfiguration(url: "postgres://a@h1,h2/db").targetSession == .readWrite)
        #expect(throws: StoreError.self) { try PostgresStoreConfiguration(url: "postgres://a@h1/db?target_session_attrs=any") }
        let replica = try PostgresStoreConfiguration(
            url: "postgres://a@r1,r2/db?target_session_attrs=prefer-standby", defaultTarget: .any, allowedTargets: PostgresTargetSession.allCases
        )
        #expect(replica.targetSession == .preferStandby)
        #expect(replica.hosts.map(\.name) == ["r1", "r2"])
        #expect(replica.clientConfiguration(for: replica.hosts[1]).host == "r2")
    }
}
