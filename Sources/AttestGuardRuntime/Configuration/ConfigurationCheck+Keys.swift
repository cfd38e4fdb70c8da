extension ConfigurationCheck {
    /// The names the placeholders of ``ConfigurationKey/all`` stand for: `apps.names`, `apiKeys.names` and
    /// `webhooks.names`.
    struct Names {
        var apps: [String]
        var apiKeys: [String]
        var webhooks: [String] = []

        /// Every concrete path the server reads for these names.
        var knownPaths: [String] {
            ConfigurationKey.all.flatMap { $0.concretePaths(apps: apps, apiKeys: apiKeys, webhooks: webhooks) }
        }

        /// The list that names what `placeholder` stands for, and the names it holds.
        func list(for placeholder: Substring) -> (key: String, names: [String]) {
            switch placeholder {
            case "<app>": ("apps.names", apps)
            case "<webhook>": ("webhooks.names", webhooks)
            default: ("apiKeys.names", apiKeys)
            }
        }
    }

    /// The problems of the file's keys, in the file's order: a key the server does not read is ``unknown``, named
    /// with the key most likely meant; a list where one value belongs, or a mapping where a value or a list
    /// belongs, is ``shapes`` (swift-configuration would read it as absent, so the default would apply unseen).
    static func keyProblems(in file: ConfigurationFileKeys, names: Names) -> (unknown: [ConfigurationError], shapes: [ConfigurationError]) {
        let known = names.knownPaths
        var unknown: [ConfigurationError] = []
        var shapes: [ConfigurationError] = []
        var mappingsReported: Set<String> = []
        for key in file.keys {
            if let pattern = ConfigurationKey.all.first(where: { $0.matches(key.path) }) {
                if let unlisted = unlistedName(in: key.path, pattern: pattern, names: names) {
                    unknown.append(unlisted)
                } else if key.isList, !pattern.isList {
                    shapes.append(ConfigurationError(key: key.path, "must be one value, not a list"))
                }
                continue
            }
            let segments = key.path.split(separator: ".")
            let enclosing = (1..<max(1, segments.count)).lazy.map { segments.prefix($0).joined(separator: ".") }
                .first { known.contains($0) }
            if let enclosing {
                if mappingsReported.insert(enclosing).inserted {
                    let isList = ConfigurationKey.all.first { $0.matches(enclosing) }?.isList ?? false
                    shapes.append(ConfigurationError(key: enclosing, isList ? "must be a list, not a mapping" : "must be one value, not a mapping"))
                }
                continue
            }
            let suggestion = NearestName.nearest(to: key.path, among: known)
                ?? sameLastSegment(as: key.path, among: known)
            unknown.append(ConfigurationError(key: key.path, "unknown key: this version does not read it", code: .unknownKey, suggestion: suggestion))
        }
        return (unknown, shapes)
    }

    /// `apps.shp.appId` when `apps.names` does not list `shp`: a key the server never reads.
    private static func unlistedName(in path: String, pattern: ConfigurationKey, names: Names) -> ConfigurationError? {
        let segments = pattern.path.split(separator: ".")
        guard let index = segments.firstIndex(where: { $0.hasPrefix("<") }) else { return nil }
        let name = String(path.split(separator: ".")[index])
        let (list, configured) = names.list(for: segments[index])
        guard !configured.contains(name) else { return nil }
        return ConfigurationError(
            key: path, "unknown key: \(list) does not list \(name)", code: .unknownKey, suggestion: NearestName.nearest(to: name, among: configured)
        )
    }

    /// The one known key whose last segment is the same (ignoring case): `server.poolSize` for `database.poolSize`.
    private static func sameLastSegment(as path: String, among known: [String]) -> String? {
        guard let last = path.split(separator: ".").last?.lowercased() else { return nil }
        let matches = known.filter { $0.split(separator: ".").last?.lowercased() == last }
        return matches.count == 1 ? matches[0] : nil
    }

    /// The `ATTESTGUARD_*` variables of `environment` that no key of the configuration reads, each named with the
    /// variable most likely meant; `secretVariables` (the variables that `*Env` keys name) are not reported.
    static func unknownVariables(in environment: [String: String], names: Names, secretVariables: Set<String>) -> [ConfigurationError] {
        let known = Set(names.knownPaths.map(ConfigurationKey.environmentVariable(forPath:)))
        let prefix = ConfigurationKey.environmentPrefix + "_"
        return environment.keys.sorted()
            .filter { $0.hasPrefix(prefix) && !known.contains($0) && !secretVariables.contains($0) }
            .map { variable in
                ConfigurationError(
                    key: variable, "unknown environment variable: this version reads no such key", code: .unknownVariable,
                    suggestion: NearestName.nearest(to: variable, among: known)
                )
            }
    }
}
