/// Server-streaming calls: the handler runs as a task like an async method, raced against the
/// deadline and cancelled when the client goes away; its responses go out as it sends them.
extension GRPCHandler {
    func runStreaming(
        _ handler: @escaping @Sendable (ArraySlice<UInt8>, RPCContext, ServerStreamingCall) async throws -> Void,
        message: ArraySlice<UInt8>, context: RPCContext, writer: ObservedWriter
    ) {
        let call = ServerStreamingCall(
            writer: writer, maxBufferedBytes: configuration.maxBufferedStreamBytes,
            stallTimeout: configuration.streamStallTimeout, reportFailure: reportFailure)
        let peerReset = PeerReset(deadline: context.deadline)
        let race = CallRace<Void>(peerReset: peerReset) { call.complete($0) }
        let task = Task {
            await race.run { try await handler(message, context, call) }
        }
        race.arm(deadline: context.deadline, cancelling: task)
        call.onEnd { task.cancel() }
        writer.onCancel {
            peerReset.record()
            task.cancel()
        }
    }
}
