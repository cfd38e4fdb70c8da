import AttestGuardRuntime
import TrafficSimulator

/// What the demo tells its user on standard error: where everything runs before the traffic starts, and with
/// `--keep-serving` the API key and curl commands to try afterwards.
struct DemoBanner {
    let serverURL: String
    let fakeAppleURL: String
    let workspace: DemoWorkspace
    let apiKey: String

    var start: String {
        """
        AttestGuard demo (simulator mode: a test PKI instead of Apple's; never for real traffic)
          server      \(serverURL)  (SQLite \(workspace.sqlitePath), rules \(workspace.rulesDirectory))
          fake Apple  \(fakeAppleURL)  (receipt redemption and DeviceCheck)
          console     \(consoleURL)  (the analysts' pages; sign in with the demo's API key, see --keep-serving)
          personas    \(Persona.allCases.map(\.rawValue).joined(separator: ", "))

        """
    }

    /// Where a newcomer goes from the table.
    static let nextSteps = """

        Next: `attestguard demo --keep-serving` keeps this server up and prints curl commands to try; `--rules DIR` plays
        the same clients against your own rule set (copy Rules/, cut key-farm, and watch the farm get through).

        """

    /// The analysts' console: on the API listener, since the demo's server has no operator listener.
    var consoleURL: String { "\(serverURL)/console" }

    func keepServing(farmKey: String?, farmAddress: String) -> String {
        let app = ServerConfigurationLoader.sampleAppId
        let auth = "-H 'Authorization: Bearer \(apiKey)'"
        var lines = [
            "",
            "The server keeps running at \(serverURL) (loopback only) until Ctrl-C. API key: \(apiKey)",
            "The console: \(consoleURL) (open it in a browser and sign in with the API key)",
            "",
        ]
        if let farmKey {
            lines += [
                "# score a farm device's key (deny: key-farm, new-keys-burst)",
                "curl -s -X POST \(serverURL)/v1/score \(auth) -H 'Content-Type: application/json' \\",
                "     -d '{\"appId\":\"\(app)\",\"keyId\":\"\(farmKey)\",\"ip\":\"\(farmAddress)\",\"action\":\"purchase\"}'",
                "# read that key with its redeemed receipt and risk metric",
                "curl -s \(serverURL)\(AttestGuardAPI.keyPath(appId: app, keyId: farmKey)) \(auth)",
            ]
        }
        lines += [
            "# the review items the analyst decided (in the console: \(consoleURL)/review-queue?status=decided)",
            "curl -s '\(serverURL)/v1/apps/\(app)/review-items?status=decided' \(auth)",
            "# edit \(workspace.rulesDirectory)/default.yaml, then reload the rules (a set with problems is refused, with them listed)",
            "curl -s -X POST \(serverURL)/v1/admin/rules/reload \(auth)",
            "# Prometheus metrics",
            "curl -s \(serverURL)/metrics",
            "",
        ]
        return lines.joined(separator: "\n") + "\n"
    }
}
