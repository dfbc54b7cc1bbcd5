import ServiceRuntime

/// A long-lived part of the daemon (the store, the change fan-out, the singleton duties, a
/// listener), driven by the composition root in one shape.
///
/// One shape, so the order is stated once (``ComponentGroup``) instead of in a start sequence,
/// a task group and a shutdown sequence that must each be kept in step with the others.
protocol Component: Sendable {
    /// Starts the component's threads, quickly; throws when it cannot serve.
    func start() throws(ComponentStartFailure)
    /// Returns once the component has stopped.
    func run() async
    /// Stops the component and returns once it has stopped; safe whether or not ``start()`` or
    /// ``run()`` ran, so a failed startup releases what was built the same way.
    func shutdown() async
}

/// Why a component could not start: the log line the daemon writes, and the cause.
struct ComponentStartFailure: Error {
    var message: String
    var cause: any Error
}

/// The daemon's components in start order; stopped in the reverse order.
///
/// Reverse order, because a component is started before those that feed it or serve from it:
/// the store before everything that writes, the listeners last, so at shutdown the listeners
/// drain first, and the store closes last, committing what the drained requests wrote.
struct ComponentGroup: Sendable {
    let components: [any Component]

    /// Starts each in order. When one cannot, reports why, shuts every component down in
    /// reverse order (started or not, releasing what was built) and returns false.
    func start(onFailure report: (ComponentStartFailure) -> Void) async -> Bool {
        for component in components {
            do {
                try component.start()
            } catch {
                report(error)
                await shutdown()
                return false
            }
        }
        return true
    }

    /// Runs every component in one task group until `stop` opens, then calls `beginShutdown`
    /// and shuts them down in reverse order; returns once every one has stopped.
    func run(until stop: Latch, beginShutdown: @Sendable () -> Void) async {
        await withTaskGroup(of: Void.self) { group in
            for component in components {
                group.addTask { await component.run() }
            }
            await stop.wait()
            beginShutdown()
            await shutdown()
            await group.waitForAll()
        }
    }

    private func shutdown() async {
        for component in components.reversed() { await component.shutdown() }
    }
}
