"""One unary gRPC call over h2c without a client-side deadline, so only the server can end it
early: the call sends grpc-timeout and then waits for the server's own answer.

grpcio derives grpc-timeout from its own deadline and resets the stream when that deadline
fires, which is never later than the server's; a test of the server's deadline made with it
races the client against the server. This client never resets, so what it reads is the
server's answer, in HEADERS and trailers.
"""
import socket
import struct
import time

import h2.config
import h2.connection
import h2.events


class RawCallError(Exception):
    pass


def unary(server, path, message: bytes, grpc_timeout: str, metadata=(), wait=30.0):
    """Sends one call and returns the server's response and trailer fields as one dict
    (a trailers-only answer has them all in its HEADERS). Raises if the stream is reset or
    nothing ends it within `wait` seconds (a bound for a loaded machine, not a timing claim)."""
    sock = socket.create_connection((server.host, int(server.port)), timeout=wait)
    try:
        conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
        conn.initiate_connection()
        stream = conn.get_next_available_stream_id()
        conn.send_headers(stream, [
            (":method", "POST"), (":scheme", "http"), (":path", path), (":authority", server.address),
            ("content-type", "application/grpc"), ("te", "trailers"), ("grpc-timeout", grpc_timeout),
            *metadata,
        ])
        conn.send_data(stream, b"\x00" + struct.pack(">I", len(message)) + message, end_stream=True)
        sock.sendall(conn.data_to_send())
        fields = {}
        end = time.monotonic() + wait
        while time.monotonic() < end:
            sock.settimeout(max(0.01, end - time.monotonic()))
            data = sock.recv(65536)
            if not data:
                raise RawCallError(f"connection closed before the call ended; fields so far {fields}")
            for event in conn.receive_data(data):
                if isinstance(event, (h2.events.ResponseReceived, h2.events.TrailersReceived)):
                    fields.update(dict(event.headers))
                elif isinstance(event, h2.events.DataReceived):
                    conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
                elif isinstance(event, h2.events.StreamReset):
                    raise RawCallError(f"the server reset the stream (error code {event.error_code})")
                elif isinstance(event, h2.events.StreamEnded):
                    return fields
            sock.sendall(conn.data_to_send())
        raise RawCallError(f"no end of the call within {wait} s")
    finally:
        sock.close()
