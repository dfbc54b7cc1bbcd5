internal import CNGHTTP2

/// A new nghttp2 callbacks table, filled in by `install`.
///
/// nghttp2 copies the table into each session it creates, so the caller deletes it with
/// `nghttp2_session_callbacks_del` as soon as its session exists.
func newCallbackTable(installing install: (OpaquePointer) -> Void) throws(HTTP2Error) -> OpaquePointer {
    var callbacks: OpaquePointer?
    guard nghttp2_session_callbacks_new(&callbacks) == 0, let callbacks else {
        throw HTTP2Error(code: -1, description: "nghttp2: out of memory creating callbacks")
    }
    install(callbacks)
    return callbacks
}
