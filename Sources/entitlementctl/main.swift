import Foundation

/// entitlementctl: a command-line gRPC client for entitlementd. See `entitlementctl --help`.
let code = CommandRunner.main(Array(CommandLine.arguments.dropFirst()),
                              environment: ProcessInfo.processInfo.environment)
exit(code.rawValue)
