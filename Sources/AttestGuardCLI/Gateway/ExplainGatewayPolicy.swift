import ArgumentParser
import Foundation
import AttestVocabulary
import GatewayPolicy

/// `attestguard gateway explain DIR --host H --method M --target T`: what the policy says of one request, and which
/// route said it. Exit 0 when an app owns the request, 1 when none does or the target is refused (the gateway
/// refuses it).
struct ExplainGatewayPolicy: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "explain", abstract: "Show the route policy one request would get.")

    @Argument(help: "The policy directory.")
    var directory: String
    @Option(help: "The request's Host header.") var host: String
    @Option(help: "The request's method.") var method = "GET"
    @Option(parsing: .unconditional, help: "The request-target as the client sent it (path and query).") var target: String

    func run() throws {
        let policies = try GatewayPolicyArgument.load(directory)
        let decision: RouteDecision?
        do {
            decision = try policies.decide(host: host, method: method, requestTarget: target)
        } catch {
            print("\(method.uppercased()) \(host)\(target): \(error) (400 \(ErrorCode.requestTargetRefused)): the gateway refuses it")
            throw ExitCode(1)
        }
        guard let decision else {
            print("no app owns \(method.uppercased()) \(host)\(target): the gateway refuses it")
            throw ExitCode(1)
        }
        print("\(method.uppercased()) \(host)\(target) -> path \(decision.path)")
        let scoring = decision.protection == .token ? (decision.scoresTokens ? ", scores tokens" : ", the token's verdict stands") : ""
        print("app \(decision.appId): \(decision.protection)\(scoring)\(decision.action.map { ", action \($0)" } ?? ""), review \(decision.review)")
        print("by \(decision.matched) (policy \(policies.version))")
    }
}
