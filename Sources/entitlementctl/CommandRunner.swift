import EntitlementAPI
import Foundation
import HTTPCore
import RPCClient
import ServiceRuntime

/// Runs one command line against a server and decides the exit code.
///
/// Output goes to stdout (tables, or one JSON object with `--json`); problems go to stderr
/// as `STATUS_NAME: message` so scripts can match on the status name.
struct CommandRunner {
    enum ExitCode: Int32 {
        case ok = 0, inactive = 1, usage = 2, failure = 3
    }

    static let service = "/entitlement.v1.EntitlementService/"

    let arguments: CLIArguments
    let client: GRPCClient
    let metadata: HTTPHeaders
    let timeout: Duration
    let json: Bool

    /// Parses, runs, reports: the whole program but `exit`.
    static func main(_ argv: [String], environment: [String: String]) -> ExitCode {
        let runner: CommandRunner
        do {
            let arguments = try CLIArguments.parse(argv, environment: environment)
            if arguments.helpRequested {
                print(arguments.command.map(Usage.page(for:)) ?? Usage.overview)
                return .ok
            }
            guard arguments.command != nil else {
                let commands = CLIArguments.Command.allCases.map(\.rawValue).joined(separator: ", ")
                throw FlagError("no command given (commands: \(commands); see --help)")
            }
            runner = try CommandRunner(arguments)
        } catch {
            printError("entitlementctl: \(error)")
            return .usage
        }
        do {
            return try runner.run()
        } catch let error as RPCClientError {
            printError("\(error.code): \(error.message)")
            return .failure
        } catch let error as AdminCallError {
            printError("entitlementctl: \(error)")
            return .failure
        } catch {
            printError("entitlementctl: \(error)")
            return .usage
        }
    }

    init(_ arguments: CLIArguments) throws(FlagError) {
        let serverText = arguments.global.string("server") ?? ""
        guard let address = ServerAddress(parsing: serverText) else {
            throw FlagError("--server must be HOST:PORT (e.g. 127.0.0.1:50051), got '\(serverText)'")
        }
        guard let timeout = try arguments.global.duration("timeout"), timeout > .zero else {
            throw FlagError("--timeout must be more than zero")
        }
        var metadata = HTTPHeaders()
        if let token = arguments.global.string("token"), !token.isEmpty {
            metadata.add(name: "authorization", value: "Bearer \(token)")
        }
        self.arguments = arguments
        self.client = GRPCClient(address: address)
        self.metadata = metadata
        self.timeout = timeout
        self.json = try arguments.global.bool("json")
    }

    func run() throws -> ExitCode {
        let user = arguments.positionals.first ?? ""
        switch arguments.command! {
        case .check: return try check(user: user)
        case .explain: return try explain(user: user)
        case .submit:
            if let transactionID = arguments.local.string("transaction-id") {
                return try submit(EntitlementV1.SubmitReceiptRequest(userID: user, transactionID: transactionID))
            }
            return try submit(try ReceiptInput.request(user: user, path: arguments.positionals[1]))
        case .history: return try history(user: user)
        case .health: return try health()
        case .watch: return try watch()
        case .refresh: return try refresh(user: user)
        case .reconcile: return try reconcile()
        case .webhooks: return try webhooks(arguments.positionals[0])
        case .appAccountToken: return try appAccountToken(user: user)
        case .owners: return try owners(originalTransactionID: arguments.positionals[0])
        case .grant: return try grant(user: user, entitlementID: arguments.positionals[1])
        case .revokeGrant: return try revokeGrant(user: user, grantID: arguments.positionals[1])
        case .apple: return try apple(arguments.positionals[0])
        case .extendAll: return try extendAll()
        case .refunds: return try refunds(user: user)
        case .extend: return try extend(user: user, originalTransactionID: arguments.positionals[1])
        case .consumption: return try consumption(user: user, transactionID: arguments.positionals[1])
        case .signOffer:
            return try signOffer(user: user, productID: arguments.positionals[1], offerID: arguments.positionals[2])
        }
    }

    private func check(user: String) throws -> ExitCode {
        var request = EntitlementV1.CheckEntitlementRequest(
            userID: user, productID: arguments.local.string("product") ?? "",
            entitlementID: arguments.local.string("entitlement") ?? "")
        request.atMs = try atMilliseconds()
        let response: EntitlementV1.CheckEntitlementResponse = try client.unary(
            path: CommandRunner.service + "CheckEntitlement", request: request, metadata: metadata, timeout: timeout)
        print(json ? ProtoJSON.check(response).rendered : TableOutput.check(response))
        return response.active ? .ok : .inactive
    }

    private func submit(_ request: EntitlementV1.SubmitReceiptRequest) throws -> ExitCode {
        let response: EntitlementV1.SubmitReceiptResponse = try client.unary(
            path: CommandRunner.service + "SubmitReceipt", request: request, metadata: metadata, timeout: timeout)
        print(json ? ProtoJSON.submit(response).rendered : TableOutput.submit(response))
        return .ok
    }

    private func history(user: String) throws -> ExitCode {
        let pageSize = try arguments.local.int("page-size", range: 1...Int(Int32.max)) ?? 0
        var request = EntitlementV1.ListHistoryRequest(
            userID: user, pageSize: Int32(pageSize), pageToken: arguments.local.string("page-token") ?? "",
            productID: arguments.local.string("product") ?? "")
        var combined: EntitlementV1.ListHistoryResponse = try client.unary(
            path: CommandRunner.service + "ListHistory", request: request, metadata: metadata, timeout: timeout)
        if try arguments.local.bool("all") {
            var seen: Set<String> = [request.pageToken]
            while !combined.nextPageToken.isEmpty {
                // A server handing back a token it already gave would loop forever.
                guard seen.insert(combined.nextPageToken).inserted else {
                    throw RPCClientError(
                        .transport, .internal, "the server repeated page token '\(combined.nextPageToken)'")
                }
                request.pageToken = combined.nextPageToken
                let page: EntitlementV1.ListHistoryResponse = try client.unary(
                    path: CommandRunner.service + "ListHistory", request: request, metadata: metadata, timeout: timeout)
                combined.events += page.events
                combined.nextPageToken = page.nextPageToken
            }
        }
        print(json ? ProtoJSON.history(combined).rendered : TableOutput.history(combined.events))
        if !json && !combined.nextPageToken.isEmpty {
            printError("more events: add --all, or --page-token \(combined.nextPageToken)")
        }
        return .ok
    }

    private func health() throws -> ExitCode {
        let service = arguments.local.string("service") ?? ""
        let response: GRPCHealthV1.HealthCheckResponse = try client.unary(
            path: "/grpc.health.v1.Health/Check", request: GRPCHealthV1.HealthCheckRequest(service: service),
            metadata: metadata, timeout: timeout)
        print(json ? ProtoJSON.health(response).rendered : response.status.description)
        guard response.status == .serving else {
            throw RPCClientError(.status, .unavailable, "the server reports \(response.status) for '\(service)'")
        }
        return .ok
    }

}

/// Writes one line to stderr, unbuffered, so it is never lost or reordered by an exit.
func printError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}
