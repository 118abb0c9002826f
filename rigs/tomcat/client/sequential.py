#!/usr/bin/env python3
"""One client, one request after another (closed loop, keep-alive, think time 0).

For the warm-up series: GET --path --requests times on a fresh server, recording each request's
latency and the server's X-Cpu-Ns header (the servlet's thread CPU). Writes a CSV:
n, start_ns, done_ns, cpu_ns (monotonic_ns, the server's clock)."""
import argparse
import gzip
import http.client
import time

ap = argparse.ArgumentParser()
ap.add_argument("--host", default="127.0.0.1")
ap.add_argument("--port", type=int, default=8080)
ap.add_argument("--path", required=True)
ap.add_argument("--requests", type=int, required=True)
ap.add_argument("--out", required=True)
a = ap.parse_args()

conn = http.client.HTTPConnection(a.host, a.port)
rows = []
for n in range(1, a.requests + 1):
    t = time.monotonic_ns()
    conn.request("GET", a.path)
    resp = conn.getresponse()
    resp.read()
    d = time.monotonic_ns()
    if resp.status != 200:
        raise SystemExit(f"sequential: request {n} answered {resp.status}")
    rows.append((n, t, d, int(resp.getheader("X-Cpu-Ns", "0"))))
opener = gzip.open if a.out.endswith(".gz") else open
with opener(a.out, "wt") as f:
    f.write("n,start_ns,done_ns,cpu_ns\n")
    for r in rows:
        f.write(",".join(map(str, r)) + "\n")
