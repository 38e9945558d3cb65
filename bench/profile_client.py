"""A fixed number of requests, each checked: one after another on one keep-alive connection,
or spread over CONNECTIONS keep-alive connections at once (each one after another).

Usage: [CONNECTIONS=N] [EXTRA_HEADERS='Name: value|Name: value'] profile_client.py HOST PORT COUNT METHOD PATH [BODY_FILE]
EXTRA_HEADERS are sent with every request (such as the X-Forwarded-For a proxy adds).
Exits non-zero if any answer is not 200, so a profile never counts failures.
"""

import http.client
import os
import sys
import threading


def run(host: str, port: int, count: int, method: str, path: str, body: bytes | None, failures: list[str]) -> None:
    connection = http.client.HTTPConnection(host, port, timeout=120)
    headers = {"Content-Type": "application/json"} if body is not None else {}
    for extra in filter(None, os.environ.get("EXTRA_HEADERS", "").split("|")):
        name, _, value = extra.partition(":")
        headers[name.strip()] = value.strip()
    for _ in range(count):
        connection.request(method, path, body=body, headers=headers)
        response = connection.getresponse()
        answer = response.read()
        if response.status != 200:
            failures.append(f"{method} {path}: {response.status} {answer[:300]!r}")
            return
    connection.close()


def main() -> None:
    host, port, count, method, path = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
    body = open(sys.argv[6], "rb").read() if len(sys.argv) > 6 else None
    connections = max(1, int(os.environ.get("CONNECTIONS", "1")))
    failures: list[str] = []
    shares = [count // connections + (1 if index < count % connections else 0) for index in range(connections)]
    threads = [threading.Thread(target=run, args=(host, port, share, method, path, body, failures)) for share in shares]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if failures:
        sys.exit(failures[0])


if __name__ == "__main__":
    main()
