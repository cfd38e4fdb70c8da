import Foundation

extension GatewayStack {
    /// How a gateway treats AttestGuard being unreachable or slow.
    enum FailureMode: String {
        case closed
        case open
    }

    /// The shipped read timeouts (2 s: AttestGuard silent that long counts as unavailable), raised to 30 s for tests
    /// that do not test them: on two cores shared with the whole suite an honest answer can take longer than 2 s.
    /// The silent-AttestGuard test keeps the shipped ones.
    static let widenedTimeouts = [
        ("proxy_send_timeout 2s;", "proxy_send_timeout 30s;"), ("proxy_read_timeout 2s;", "proxy_read_timeout 30s;"),
        ("response_header_timeout 2s", "response_header_timeout 30s"),
    ]

    /// The two shipped nginx configurations.
    enum NginxVariant {
        /// `attestguard.conf` with `attestguard.js`: the body hashed and bound.
        case njs
        /// `attestguard-auth-request.conf`: plain `auth_request`, no body binding.
        case authRequest
    }

    /// nginx with a shipped configuration: its listen port, AttestGuard's and the upstream's addresses, the folder of
    /// its files and the failure mode replaced; `attestGuardPort` points it elsewhere (a stopped or silent AttestGuard).
    /// - Parameter upstreamExtra: Directives added to the njs upstream location, as an operator adds their own.
    func startNginx(
        _ variant: NginxVariant = .njs, failureMode: FailureMode = .closed, attestGuardPort: Int? = nil, upstreamExtra: String? = nil,
        shippedTimeouts: Bool = false
    ) async throws -> GatewayProcess {
        let directory = try GatewayProcess.makeDirectory("nginx")
        let port = try GatewayProcess.freePort()
        let shipped = GatewayBinaries.shipped.appendingPathComponent("nginx")
        var site = try String(contentsOf: shipped.appendingPathComponent(variant == .njs ? "attestguard.conf" : "attestguard-auth-request.conf"), encoding: .utf8)
        site = try Self.replacing(site, [
            ("listen 8443;", "listen 127.0.0.1:\(port);"),
            ("server 127.0.0.1:8080;", "server 127.0.0.1:\(attestGuardPort ?? attestGuard.port);"),
            ("http://127.0.0.1:9000", "http://127.0.0.1:\(upstream.port)"),
            ("/etc/nginx/attestguard/", directory.path + "/"),
        ] + (shippedTimeouts ? [] : Self.widenedTimeouts.filter { $0.0.hasPrefix("proxy_") }))
        if variant == .njs {
            site = try Self.replacing(site, [("/var/lib/nginx/attestguard-tokens", directory.path + "/tokens")])
        }
        switch (variant, failureMode) {
        case (.njs, _):
            site = try Self.replacing(site, [("set $attestguard_failure_mode closed;", "set $attestguard_failure_mode \(failureMode.rawValue);")])
        case (.authRequest, .open):
            site = try Self.replacing(site, [
                ("error_page 500 = @attestguard_unavailable;", "# error_page 500 = @attestguard_unavailable;"),
                ("# error_page 500 = @attestguard_fail_open;", "error_page 500 = @attestguard_fail_open;"),
            ])
        case (.authRequest, .closed):
            break
        }
        if let upstreamExtra {
            site = try Self.replacing(site, [("location @attestguard_upstream {", "location @attestguard_upstream {\n        \(upstreamExtra)")])
        }
        try site.write(to: directory.appendingPathComponent("attestguard.conf"), atomically: true, encoding: .utf8)
        try FileManager.default.copyItem(at: shipped.appendingPathComponent("attestguard.js"), to: directory.appendingPathComponent("attestguard.js"))
        let appRoute = try String(contentsOf: shipped.appendingPathComponent("attestguard-app-route.conf"), encoding: .utf8)
        try Self.replacing(appRoute, [("/etc/nginx/attestguard/", directory.path + "/")])
            .write(to: directory.appendingPathComponent("attestguard-app-route.conf"), atomically: true, encoding: .utf8)
        try Self.users.map { "\($0):{PLAIN}password\n" }.joined()
            .write(to: directory.appendingPathComponent("htpasswd"), atomically: true, encoding: .utf8)
        try "proxy_set_header Authorization \"Bearer \(Self.gatewayKey)\";\n"
            .write(to: directory.appendingPathComponent("gateway-key.conf"), atomically: true, encoding: .utf8)
        // The main configuration a Debian install provides, reduced to what a foreground nginx in a folder needs.
        let main = """
            load_module \(GatewayBinaries.njsModule);
            user root;
            worker_processes 1;
            pid \(directory.path)/nginx.pid;
            error_log \(directory.path)/error.log info;
            events { worker_connections 256; }
            http {
                access_log off;
                client_body_temp_path \(directory.path)/body;
                proxy_temp_path \(directory.path)/proxy;
                fastcgi_temp_path \(directory.path)/fastcgi;
                uwsgi_temp_path \(directory.path)/uwsgi;
                scgi_temp_path \(directory.path)/scgi;
                include \(directory.path)/attestguard.conf;
            }

            """
        try main.write(to: directory.appendingPathComponent("nginx.conf"), atomically: true, encoding: .utf8)
        return keep(try await GatewayProcess(
            executable: GatewayBinaries.nginx,
            arguments: ["-p", directory.path, "-c", directory.appendingPathComponent("nginx.conf").path, "-e", directory.appendingPathComponent("error.log").path, "-g", "daemon off;"],
            directory: directory, port: port
        ))
    }

    /// The users the gateways authenticate, each with the password `password`.
    static let users = ["alice", "mallory", "bob", "carol", "dave"]

    /// Caddy with the shipped `Gateway/caddy/Caddyfile`: its port, AttestGuard's and the upstream's addresses, the
    /// folder of its files and (for `.open`) the error handler replaced; the gateway key comes from the environment.
    func startCaddy(failureMode: FailureMode = .closed, attestGuardPort: Int? = nil, shippedTimeouts: Bool = false) async throws -> GatewayProcess {
        let directory = try GatewayProcess.makeDirectory("caddy")
        let port = try GatewayProcess.freePort()
        var caddyfile = try String(contentsOf: GatewayBinaries.shipped.appendingPathComponent("caddy/Caddyfile"), encoding: .utf8)
        caddyfile = try Self.replacing(caddyfile, [
            ("http://:8443 {", "http://:\(port) {\n\tbind 127.0.0.1"),
            ("127.0.0.1:8080", "127.0.0.1:\(attestGuardPort ?? attestGuard.port)"),
            ("127.0.0.1:9000", "127.0.0.1:\(upstream.port)"),
            ("/etc/caddy/attestguard/", directory.path + "/"),
        ] + (shippedTimeouts ? [] : Self.widenedTimeouts.filter { !$0.0.hasPrefix("proxy_") }))
        if failureMode == .open { caddyfile = try Self.failingOpen(caddyfile) }
        try caddyfile.write(to: directory.appendingPathComponent("Caddyfile"), atomically: true, encoding: .utf8)
        // bcrypt of "password" at cost 4, so that checking it is cheap.
        let hash = "$2a$04$abcdefghijklmnopqrstuughE8Ev8uGFaUgY2cNEySvxngrb/Jzdm"
        try Self.users.map { "\($0) \(hash)\n" }.joined()
            .write(to: directory.appendingPathComponent("basicauth-users"), atomically: true, encoding: .utf8)
        return keep(try await GatewayProcess(
            executable: GatewayBinaries.caddy,
            arguments: ["run", "--config", directory.appendingPathComponent("Caddyfile").path, "--adapter", "caddyfile"],
            environment: ["ATTESTGUARD_GATEWAY_KEY": Self.gatewayKey, "HOME": directory.path, "XDG_DATA_HOME": directory.path, "XDG_CONFIG_HOME": directory.path],
            directory: directory, port: port
        ))
    }

    /// The Caddyfile with its fail-open handler in place of the fail-closed one, as its comment says to do.
    static func failingOpen(_ caddyfile: String) throws -> String {
        var lines = caddyfile.components(separatedBy: "\n")
        guard let closed = lines.firstIndex(where: { $0.trimmingCharacters(in: .whitespaces) == "handle @attestguard_unavailable {" }),
              let closedEnd = lines[closed...].firstIndex(where: { $0.trimmingCharacters(in: .whitespaces) == "}" }),
              let open = lines.firstIndex(where: { $0.trimmingCharacters(in: .whitespaces) == "# handle @attestguard_unavailable {" }),
              let openEnd = lines[open...].firstIndex(where: { $0.trimmingCharacters(in: .whitespaces) == "# }" })
        else { throw GatewayProcess.StartFailure(description: "the shipped Caddyfile no longer has its fail-open handler") }
        // "\t\t# \trequest_header ..." becomes "\t\t\trequest_header ...".
        let uncommented = lines[open...openEnd].map { line -> String in
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            return "\t\t" + String(trimmed.dropFirst(trimmed.hasPrefix("# ") ? 2 : 1))
        }
        lines.replaceSubrange(open...openEnd, with: [String]())
        lines.replaceSubrange(closed...closedEnd, with: uncommented)
        return lines.joined(separator: "\n")
    }

    /// `text` with each `(shipped, replacement)` replaced; a shipped text missing from the file fails, so that the
    /// tests always run the configuration as shipped.
    static func replacing(_ text: String, _ replacements: [(String, String)]) throws -> String {
        var text = text
        for (shipped, replacement) in replacements {
            guard text.contains(shipped) else { throw GatewayProcess.StartFailure(description: "the shipped configuration no longer contains \(shipped)") }
            text = text.replacingOccurrences(of: shipped, with: replacement)
        }
        return text
    }
}
