"""Holds N idle WatchEntitlementChanges streams open on one entitlementd (for watchers.sh).

    idle_watchers.py HOST:PORT N CONNECTIONS

Opens CONNECTIONS h2c connections with N/CONNECTIONS streams each (under the server's 256
concurrent streams per connection), waits until every stream has its response headers, prints
`watching N`, then keeps answering the server's keepalive PINGs until SIGTERM or stdin closes.
Streams that end are reported on stderr (an idle watcher should never be ended)."""
import selectors
import signal
import socket
import sys

import h2.config
import h2.connection
import h2.events

PATH = "/entitlement.v1.EntitlementService/WatchEntitlementChanges"


def main():
    address, total, conns = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    host, port = address.rsplit(":", 1)
    selector = selectors.DefaultSelector()
    sessions, pending = [], 0
    for index in range(conns):
        sock = socket.create_connection((host, int(port)))
        conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
        conn.initiate_connection()
        count = total // conns + (1 if index < total % conns else 0)
        for _ in range(count):
            stream = conn.get_next_available_stream_id()
            conn.send_headers(stream, [(":method", "POST"), (":scheme", "http"), (":authority", address),
                                       (":path", PATH), ("content-type", "application/grpc"), ("te", "trailers")])
            conn.send_data(stream, b"\x00\x00\x00\x00\x00", end_stream=True)  # an empty request: from now on
        sock.sendall(conn.data_to_send())
        selector.register(sock, selectors.EVENT_READ, conn)
        sessions.append(sock)
        pending += count
    selector.register(sys.stdin, selectors.EVENT_READ, None)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    announced = False
    while True:
        for key, _ in selector.select(timeout=1):
            if key.data is None:
                if not sys.stdin.readline():
                    return
                continue
            data = key.fileobj.recv(65536)
            if not data:
                print("connection closed by the server", file=sys.stderr)
                return
            for event in key.data.receive_data(data):
                if isinstance(event, h2.events.ResponseReceived):
                    pending -= 1
                elif isinstance(event, (h2.events.StreamEnded, h2.events.StreamReset)):
                    print(f"stream ended: {event}", file=sys.stderr)
            out = key.data.data_to_send()
            if out:
                key.fileobj.sendall(out)
        if pending == 0 and not announced:
            announced = True
            print(f"watching {total}", flush=True)


if __name__ == "__main__":
    main()
