import Foundation
import ServiceRuntime

// appstore-sim: `serve` runs the simulated App Store; every other subcommand is a client of
// its control API and prints the JSON answer.

// Before any thread exists, so every thread inherits it (see SignalWatcher).
SignalWatcher.blockHandledSignals()
let arguments = Array(CommandLine.arguments.dropFirst())
guard let command = arguments.first, command != "--help", command != "-h", command != "help" else {
    print(ClientCommand.usage)
    exit(arguments.isEmpty ? 2 : 0)
}
if command == "serve" {
    exit(ServeCommand.run(Array(arguments.dropFirst())))
}
exit(await ClientCommand.run(command, Array(arguments.dropFirst())))
