import ArgumentParser
import GatewayPolicy

/// `attestguard gateway check DIR`: loads the policy files as the server will and prints each app's routes, or every
/// problem at its file, line and column. Exit 0 clean, 1 with problems.
struct CheckGatewayPolicy: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "check", abstract: "Check a directory of gateway route policy files.")

    @Argument(help: "The policy directory (its *.yaml files, one app each).")
    var directory: String

    func run() throws {
        let policies = try GatewayPolicyArgument.load(directory)
        print("\(directory): \(policies.apps.count) app(s), version \(policies.version)")
        for app in policies.apps.sorted(by: { $0.appId < $1.appId }) {
            let hosts = app.hosts.isEmpty ? "any host" : app.hosts.sorted().joined(separator: ", ")
            print("\(app.appId): \(hosts), under \(app.pathPrefix); default \(app.defaultProtection), review \(app.review)\(app.scoresTokens ? ", scoreTokens true" : "") (\(app.file))")
            for route in app.routes {
                let methods = route.methods.isEmpty ? "any" : route.methods.sorted().joined(separator: ",")
                let action = route.action.map { " action \($0)" } ?? ""
                let scoring = route.scoresTokens.map { ", scoreTokens \($0)" } ?? ""
                print("  \(methods) \(route.path): \(route.protection)\(action)\(route.review.map { ", review \($0)" } ?? "")\(scoring)")
            }
        }
    }
}

/// Loading a policy directory for a command: problems go to standard error and end the command with exit code 1.
enum GatewayPolicyArgument {
    static func load(_ directory: String) throws -> GatewayPolicySet {
        do {
            return try GatewayPolicyLoader.load(directory: directory)
        } catch {
            throw error.reported("the policy")
        }
    }
}
