"""Posts lines [FIRST, LAST) of a bodies file (one JSON body a line) to /apple/notifications.

    post_bodies.py HOST:PORT BODIES.jsonl FIRST LAST CONNECTIONS

An exact count over keep-alive connections, unlike wrk's fixed duration, so that callgrind's
instructions divide by a known number of notifications. Exits 1 if any answer is not 200.
"""
import http.client
import sys
import threading


def main():
    address, path = sys.argv[1], sys.argv[2]
    first, last, connections = int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
    host, port = address.rsplit(":", 1)
    with open(path) as lines:
        bodies = [line.rstrip("\n") for index, line in enumerate(lines) if first <= index < last]
    lock = threading.Lock()
    state = {"next": 0, "refused": 0}

    def send():
        connection = http.client.HTTPConnection(host, int(port), timeout=600)
        while True:
            with lock:
                if state["next"] >= len(bodies):
                    return
                body = bodies[state["next"]]
                state["next"] += 1
            connection.request("POST", "/apple/notifications", body=body,
                               headers={"Content-Type": "application/json"})
            answer = connection.getresponse()
            answer.read()
            if answer.status != 200:
                with lock:
                    state["refused"] += 1

    threads = [threading.Thread(target=send) for _ in range(connections)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    print(f"posted {len(bodies)}, {state['refused']} not answered 200")
    sys.exit(1 if state["refused"] else 0)


if __name__ == "__main__":
    main()
