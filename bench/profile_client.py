"""A fixed number of requests, one after another on one keep-alive connection, each checked.

Usage: profile_client.py HOST PORT COUNT METHOD PATH [BODY_FILE]
Exits non-zero on the first answer that is not 200, so a profile never counts failures.
"""

import http.client
import sys


def main() -> None:
    host, port, count, method, path = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
    body = open(sys.argv[6], "rb").read() if len(sys.argv) > 6 else None
    connection = http.client.HTTPConnection(host, port, timeout=120)
    headers = {"Content-Type": "application/json"} if body is not None else {}
    for _ in range(count):
        connection.request(method, path, body=body, headers=headers)
        response = connection.getresponse()
        answer = response.read()
        if response.status != 200:
            sys.exit(f"{method} {path}: {response.status} {answer[:300]!r}")
    connection.close()


if __name__ == "__main__":
    main()
