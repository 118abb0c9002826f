"""Readers and statistics shared by the summaries: wrk's output, nstat, /proc/stat, /stats JSON,
per-request CSVs. Percentiles are nearest-rank (the smallest value with at least p % at or
below it)."""
import csv
import gzip
import json
import math
import os
import re
import statistics


def pct(vals, p):
    v = sorted(vals)
    if not v:
        return None
    return v[max(0, math.ceil(p / 100 * len(v)) - 1)]


def median(vals):
    v = [x for x in vals if x is not None]
    return statistics.median(v) if v else None


def spread(vals):
    v = [x for x in vals if x is not None]
    return (min(v), max(v)) if v else (None, None)


def read_csv(path):
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rt") as f:
        return list(csv.DictReader(f))


def read_json(path):
    with open(path) as f:
        return json.load(f)


def runs(d):
    return sorted((os.path.join(d, r) for r in os.listdir(d) if re.fullmatch(r"run\d+", r)),
                  key=lambda p: int(p.rsplit("run", 1)[1]))


def nstat(path):
    out = {}
    with open(path) as f:
        for line in f:
            p = line.split()
            if len(p) >= 2 and p[1].isdigit():
                out[p[0]] = int(p[1])
    return out


NSTAT_KEYS = ["TcpExtListenOverflows", "TcpExtListenDrops", "TcpExtTCPSynRetrans",
              "TcpExtSyncookiesSent", "TcpExtSyncookiesRecv", "TcpExtTCPReqQFullDoCookies",
              "TcpExtTCPReqQFullDrop", "TcpPassiveOpens", "TcpRetransSegs", "TcpExtTCPTimeouts"]


def nstat_delta(a, b):
    x, y = nstat(a), nstat(b)
    return {k: y.get(k, 0) - x.get(k, 0) for k in NSTAT_KEYS}


def procstat(path):
    """Lines of /proc/stat's cpu row; returns a list of dicts of ticks."""
    rows = []
    with open(path) as f:
        for line in f:
            p = line.split()
            if p and p[0] == "cpu":
                v = list(map(int, p[1:9]))
                rows.append(dict(zip(["user", "nice", "system", "idle", "iowait", "irq",
                                      "softirq", "steal"], v)))
    return rows


def shares(a, b):
    """Share of all CPU time between two /proc/stat rows, in percent, by column."""
    d = {k: b[k] - a[k] for k in a}
    tot = sum(d.values()) or 1
    return {k: round(100 * v / tot, 1) for k, v in d.items()}


def loadavg(path):
    with open(path) as f:
        rows = [line.split()[:3] for line in f if line.strip()]
    return {"before": rows[0] if rows else None, "after": rows[-1] if len(rows) > 1 else None}


def wrk(path):
    txt = open(path).read()
    out = {}

    def dur(s):
        m = re.fullmatch(r"([\d.]+)(us|ms|s|m)", s)
        if not m:
            return None
        return float(m[1]) * {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60000.0}[m[2]]

    m = re.search(r"Latency\s+(\S+)\s+(\S+)\s+(\S+)", txt)
    if m:
        out["mean_ms"], out["stdev_ms"], out["max_ms"] = dur(m[1]), dur(m[2]), dur(m[3])
    for p in ("50", "75", "90", "99"):
        m = re.search(rf"^\s+{p}%\s+(\S+)", txt, re.M)
        if m:
            out[f"p{p}_ms"] = dur(m[1])
    m = re.search(r"(\d+) requests in ([\d.]+)(s|m)", txt)
    if m:
        out["requests"] = int(m[1])
        out["seconds"] = float(m[2]) * (60 if m[3] == "m" else 1)
    m = re.search(r"Requests/sec:\s+([\d.]+)", txt)
    out["rps"] = float(m[1]) if m else None
    m = re.search(r"Non-2xx or 3xx responses: (\d+)", txt)
    out["non2xx"] = int(m[1]) if m else 0
    m = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", txt)
    out["socket_errors"] = dict(zip(["connect", "read", "write", "timeout"],
                                    map(int, m.groups()))) if m else {}
    return out


GC_COMMS = ("GC Thread", "G1 ", "Z", "VM Thread")


def thread_groups(path):
    """threadcpu.py's JSON grouped: gc (GC workers, G1/Z threads, the VM thread that runs
    safepoints), jit (C1/C2), other."""
    raw = read_json(path)
    g = {"gc": 0, "jit": 0, "other": 0}
    for k, v in raw.items():
        if k.startswith(GC_COMMS):
            g["gc"] += v
        elif k.startswith(("C1 Compiler", "C2 Compiler")):
            g["jit"] += v
        else:
            g["other"] += v
    return g


def fmt(v, nd=1):
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.{nd}f}"
    return str(v)


def table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for r in rows:
        out.append("| " + " | ".join(fmt(x) if not isinstance(x, str) else x for x in r) + " |")
    return "\n".join(out)


def median_row(label, rows, skip=1):
    """A row of medians (and min-max) of the numeric columns of rows."""
    out = [label] + [""] * (skip - 1)
    for col in range(skip, len(rows[0])):
        vals = [r[col] for r in rows if isinstance(r[col], (int, float))]
        if not vals:
            out.append("")
            continue
        lo, hi = spread(vals)
        out.append(f"**{fmt(median(vals))}** ({fmt(lo)}-{fmt(hi)})")
    return out
