"""Opens many keep-alive connections to a server, makes one request on each, then holds them
idle until told to stop (a line on standard input), printing progress lines the caller waits for.

Usage: python3 idle_clients.py PORT COUNT
"""
import resource
import socket
import sys
import time

port, count = int(sys.argv[1]), int(sys.argv[2])
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))

request = b"GET /healthz HTTP/1.1\r\nHost: bench\r\n\r\n"
sockets = []
started = time.time()
failed = 0
for _ in range(count):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(10)
    try:
        s.connect(("127.0.0.1", port))
        s.sendall(request)
        reply = s.recv(4096)
        if not reply.startswith(b"HTTP/1.1 200"):
            failed += 1
    except OSError:
        failed += 1
        s.close()
        continue
    sockets.append(s)
print(f"open {len(sockets)} failed {failed} seconds {time.time() - started:.1f}", flush=True)
sys.stdin.readline()
for s in sockets:
    s.close()
print("closed", flush=True)
