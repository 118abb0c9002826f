#!/usr/bin/env python3
"""Open-loop HTTP/1.1 client: every request on a new connection (Connection: close).

Arrivals are either Poisson at --rate for --duration seconds (from --seed), or a --burst of N
requests started together (connect() called for all of them in one tight loop, after the
sockets were created). A request's clock starts at its scheduled arrival, so a late start counts
(no coordinated omission). One thread, epoll. Times are time.monotonic_ns(), the clock the
server's System.nanoTime() reads.

Writes one CSV row per request (gzip when --out ends in .gz) and prints a JSON summary.
Columns: id, sched_ns (the arrival), start_ns (connect called), conn_ns (connect completed),
sent_ns, first_ns (first response byte), done_ns (EOF), status (0: none), err.
"""
import argparse
import errno
import gzip
import json
import random
import resource
import selectors
import socket
import sys
import time


def pct(sorted_vals, p):
    if not sorted_vals:
        return None
    k = min(len(sorted_vals) - 1, max(0, int(round(p / 100.0 * len(sorted_vals) + 0.5)) - 1))
    return sorted_vals[k]


class Req:
    __slots__ = ("id", "sched", "start", "conn", "sent", "first", "done", "status", "err",
                 "sock", "buf", "out")

    def __init__(self, i, sched):
        self.id, self.sched = i, sched
        self.start = self.conn = self.sent = self.first = self.done = 0
        self.status, self.err, self.sock, self.buf, self.out = 0, "", None, b"", b""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=8080)
    ap.add_argument("--path", default="/sleep?ms=100")
    ap.add_argument("--rate", type=float, help="Poisson arrivals per second")
    ap.add_argument("--duration", type=float, default=30.0, help="seconds of arrivals")
    ap.add_argument("--burst", type=int, help="N requests started together instead")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=60.0, help="per request, from its arrival")
    ap.add_argument("--tag-id", action="store_true",
                    help="append &id=N (the request's id) to the path, for joining server records")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    if (a.rate is None) == (a.burst is None):
        sys.exit("openloop: give exactly one of --rate and --burst")

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    def payload_of(i):
        path = f"{a.path}{'&' if '?' in a.path else '?'}id={i}" if a.tag_id else a.path
        return (f"GET {path} HTTP/1.1\r\nHost: {a.host}:{a.port}\r\n"
                "User-Agent: rig-openloop\r\nConnection: close\r\n\r\n").encode()
    sel = selectors.DefaultSelector()
    reqs = []

    def new_socket():
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setblocking(False)
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return s

    def start(r, now):
        s = r.sock if r.sock is not None else new_socket()
        r.sock = s
        r.start = time.monotonic_ns()
        rc = s.connect_ex((a.host, a.port))
        if rc not in (0, errno.EINPROGRESS):
            finish(r, "connect:" + errno.errorcode.get(rc, str(rc)))
            return
        sel.register(s, selectors.EVENT_WRITE, r)

    def finish(r, err=""):
        r.done = time.monotonic_ns()
        r.err = err
        if r.sock is not None:
            try:
                sel.unregister(r.sock)
            except (KeyError, ValueError):
                pass
            r.sock.close()
            r.sock = None

    def on_event(r, mask):
        s = r.sock
        now = time.monotonic_ns()
        if not r.conn:
            e = s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
            if e:
                finish(r, "connect:" + errno.errorcode.get(e, str(e)))
                return
            r.conn = now
            r.out = payload_of(r.id)
        if r.out:
            try:
                n = s.send(r.out)
            except OSError as ex:
                finish(r, "send:" + (errno.errorcode.get(ex.errno, str(ex.errno))))
                return
            r.out = r.out[n:]
            if not r.out:
                r.sent = time.monotonic_ns()
                sel.modify(s, selectors.EVENT_READ, r)
            return
        try:
            chunk = s.recv(65536)
        except OSError as ex:
            finish(r, "recv:" + (errno.errorcode.get(ex.errno, str(ex.errno))))
            return
        if chunk:
            if not r.first:
                r.first = now
            if len(r.buf) < 64:
                r.buf += chunk[:64]
            return
        try:
            r.status = int(r.buf.split(b" ", 2)[1])
        except (IndexError, ValueError):
            r.status = 0
        finish(r, "" if r.status else "eof")

    t0 = time.monotonic_ns() + 200_000_000
    if a.burst:
        reqs = [Req(i, t0) for i in range(a.burst)]
        for r in reqs:  # created beforehand: the burst's loop only calls connect()
            r.sock = new_socket()
    else:
        rnd = random.Random(a.seed)
        t = 0.0
        while True:
            t += rnd.expovariate(a.rate)
            if t >= a.duration:
                break
            reqs.append(Req(len(reqs), t0 + int(t * 1e9)))
    timeout_ns = int(a.timeout * 1e9)
    while time.monotonic_ns() < t0:
        time.sleep(0.001)
    nxt = 0
    open_reqs = set()
    while nxt < len(reqs) or open_reqs:
        now = time.monotonic_ns()
        while nxt < len(reqs) and reqs[nxt].sched <= now:
            r = reqs[nxt]
            nxt += 1
            start(r, now)
            if r.sock is not None:
                open_reqs.add(r)
            if not a.burst:
                now = time.monotonic_ns()
        wait = 0.05
        if nxt < len(reqs):
            wait = max(0.0, (reqs[nxt].sched - time.monotonic_ns()) / 1e9)
        for key, mask in sel.select(timeout=min(wait, 0.05)):
            r = key.data
            on_event(r, mask)
            if r.sock is None:
                open_reqs.discard(r)
        now = time.monotonic_ns()
        for r in [r for r in open_reqs if now - r.sched > timeout_ns]:
            finish(r, "timeout")
            open_reqs.discard(r)

    opener = gzip.open if a.out.endswith(".gz") else open
    with opener(a.out, "wt") as f:
        f.write("id,sched_ns,start_ns,conn_ns,sent_ns,first_ns,done_ns,status,err\n")
        for r in reqs:
            f.write(f"{r.id},{r.sched},{r.start},{r.conn},{r.sent},{r.first},{r.done},"
                    f"{r.status},{r.err}\n")
    ok = [r for r in reqs if 200 <= r.status < 300]
    lat = sorted((r.done - r.sched) / 1e6 for r in ok)
    con = sorted((r.conn - r.start) / 1e6 for r in reqs if r.conn)
    window = (reqs[-1].sched - t0) / 1e9 if len(reqs) > 1 else 0.0
    in_window = sum(1 for r in ok if r.done <= t0 + int(a.duration * 1e9)) if a.rate else None
    errs = {}
    for r in reqs:
        k = r.err or (str(r.status) if not 200 <= r.status < 300 else None)
        if k:
            errs[k] = errs.get(k, 0) + 1
    summary = {
        "requests": len(reqs), "ok": len(ok), "errors": errs,
        "offered_rps": (len(reqs) / a.duration) if a.rate else None,
        "throughput_rps": (in_window / a.duration) if a.rate else None,
        "throughput_total_rps": (len(ok) / ((max(r.done for r in ok) - t0) / 1e9))
        if a.rate and ok else None,
        "drain_s": ((max(r.done for r in reqs) - t0) / 1e9 - a.duration) if a.rate else None,
        "latency_ms": {"mean": sum(lat) / len(lat) if lat else None,
                       "p50": pct(lat, 50), "p90": pct(lat, 90), "p99": pct(lat, 99),
                       "max": lat[-1] if lat else None},
        "connect_ms": {"p50": pct(con, 50), "p99": pct(con, 99), "max": con[-1] if con else None,
                       "over_900ms": sum(1 for c in con if c > 900)},
        "burst_spread_ms": ((max(r.start for r in reqs) - min(r.start for r in reqs)) / 1e6)
        if a.burst else None,
        "window_s": window,
    }
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
