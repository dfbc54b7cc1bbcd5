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
        let task = Task {
            await GRPCHandler.race(deadline: context.deadline, peerReset: peerReset, {
                try await handler(message, context, call)
            }) {
                call.complete($0)
            }
        }
        call.onEnd { task.cancel() }
        writer.onCancel {
            peerReset.record()
            task.cancel()
        }
    }
}
