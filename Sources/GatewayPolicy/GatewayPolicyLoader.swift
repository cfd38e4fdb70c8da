public import PolicyFiles

/// Loads a ``GatewayPolicySet`` from a directory: every `*.yaml` / `*.yml` file directly in it is one app's policy.
/// Only regular files are read, every problem of every file is reported at once (the rule set's problem shape and
/// codes), and any problem means no set, so that a reload never replaces a working set with a broken one. Two files
/// claiming the same hosts and path prefix, or the same app twice, are problems.
public enum GatewayPolicyLoader {
    public static func load(directory: String) throws(PolicyFileLoadFailure) -> GatewayPolicySet {
        try compile(documents: try PolicyFileAccess.yamlFiles(in: directory, kind: "policy"))
    }

    /// Builds the set from policy files given as text.
    public static func compile(documents: [(path: String, text: String)]) throws(PolicyFileLoadFailure) -> GatewayPolicySet {
        var errors: [PolicyFileProblem] = []
        var apps: [AppRoutePolicy] = []
        var claims: [String: String] = [:]
        for (path, text) in documents {
            do throws(PolicyFileProblem) {
                let document = try YAMLDocument(path: path, text: text)
                var reader = PolicyFileReader(document)
                let policy = reader.read()
                errors += reader.errors
                guard let policy else { continue }
                if let other = apps.first(where: { $0.appId == policy.appId }) {
                    errors.append(document.error(.duplicateSetting, at: document.root, "app \(policy.appId) already has a policy file, \(other.file)"))
                }
                for host in policy.hosts.isEmpty ? ["*"] : policy.hosts.sorted() {
                    let claim = "\(host)\(policy.pathPrefix.normalized)"
                    if let other = claims[claim] {
                        errors.append(document.error(.duplicateSetting, at: document.root, "\(claim) is claimed by \(other) too", hint: "give one of them another host or pathPrefix"))
                    }
                    claims[claim] = path
                }
                apps.append(policy)
            } catch {
                errors.append(error)
            }
        }
        guard errors.isEmpty else { throw PolicyFileLoadFailure(errors: errors) }
        return GatewayPolicySet(apps: apps, version: PolicyFileVersion.of(documents.map { (PolicyFileVersion.nameInDirectory($0.path), $0.text) }))
    }
}
