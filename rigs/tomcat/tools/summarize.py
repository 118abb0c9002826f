#!/usr/bin/env python3
"""summarize.py N DIR: the summary of experiment N (1-5) from its raw results in DIR.
Writes DIR/summary.json (every run's figures) and DIR/summary.md (tables: one row per run,
then the median and, in brackets, the smallest and largest of the runs)."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import (fmt, loadavg, median, median_row, nstat_delta, pct, procstat, read_csv,  # noqa: E402
                    read_json, runs, shares, spread, table, thread_groups, wrk)
import gcsum  # noqa: E402


def quiet(run):
    """loadavg before/after and the share of the cores the nice-19 processes took."""
    la = loadavg(os.path.join(run, "loadavg.txt"))
    ps = procstat(os.path.join(run, "procstat.txt"))
    sh = shares(ps[0], ps[-1]) if len(ps) > 1 else {}
    return {"loadavg_before": la["before"], "loadavg_after": la["after"],
            "nice19_pct": sh.get("nice"), "idle_pct": sh.get("idle"), "ours_pct":
            round(sh.get("user", 0) + sh.get("system", 0) + sh.get("softirq", 0), 1) if sh else None}


def burst(path):
    rows = read_csv(path)
    start = min(int(r["start_ns"]) for r in rows)
    lat = [(int(r["done_ns"]) - int(r["sched_ns"])) / 1e6 for r in rows if r["status"] == "200"]
    con = [(int(r["conn_ns"]) - int(r["start_ns"])) / 1e6 for r in rows if int(r["conn_ns"])]
    # clients whose first SYN was answered, and those whose connect() took a retransmission
    first = [(int(r["done_ns"]) - int(r["sched_ns"])) / 1e6 for r in rows
             if r["status"] == "200" and int(r["conn_ns"]) - int(r["start_ns"]) < 900e6]
    retried = [(int(r["done_ns"]) - int(r["sched_ns"])) / 1e6 for r in rows
               if r["status"] == "200" and int(r["conn_ns"]) - int(r["start_ns"]) >= 900e6]
    return {
        "requests": len(rows), "ok": len(lat),
        "errors": len(rows) - len(lat),
        "spread_ms": (max(int(r["start_ns"]) for r in rows) - start) / 1e6,
        "syn_retried": sum(1 for c in con if c > 900),
        "over_1s": sum(1 for x in lat if x > 1000),
        "p50": pct(lat, 50), "p90": pct(lat, 90), "p99": pct(lat, 99), "max": max(lat) if lat else None,
        "first_try_p50": pct(first, 50), "first_try_max": max(first) if first else None,
        "retried_p50": pct(retried, 50), "retried_max": max(retried) if retried else None,
        "connect_p50": pct(con, 50), "connect_max": max(con) if con else None,
        "start_ns": start,
    }


def pool_growth(path, t0):
    rows = read_csv(path)
    out = {}
    for target in (11, 50, 100, 150, 200):
        hit = next((r for r in rows if int(r["pool"]) >= target), None)
        out[f"pool{target}_ms"] = (int(hit["t_ns"]) - t0) / 1e6 if hit else None
    out["pool_max"] = max(int(r["pool"]) for r in rows)
    return out


def gc_in_bursts(run):
    """The young pauses (ms) whose log line (written at the pause's end) falls within a burst:
    from its first connect() to its last response, on the JVM's uptime clock."""
    import gzip
    import re
    st = read_json(os.path.join(run, "stats-1.json"))
    base = st["nano_time"] - st["uptime_ms"] * 1e6
    pauses = []
    with gzip.open(os.path.join(run, "gc.log.gz"), "rt") as f:
        for line in f:
            m = re.match(r"\[([\d.]+)s\]\[info\]\[gc\s*\] GC\(\d+\) Pause.* ([\d.]+)ms$", line.strip())
            if m:
                pauses.append((float(m[1]), float(m[2])))
    out = {}
    for p in ("cold", "warm", "hot"):
        rows = read_csv(os.path.join(run, f"{p}.csv.gz"))
        t0 = (min(int(r["start_ns"]) for r in rows) - base) / 1e9
        t1 = (max(int(r["done_ns"]) for r in rows) - base) / 1e9
        out[p] = [f"{ms:.1f} ms ending {1000 * (t - t0):.0f} ms in" for t, ms in pauses if t0 <= t <= t1]
    return out


def exp1(d):
    res, md = {}, ["# 1. Cold burst: 400 connections at once, GET /sleep?ms=100, 200 threads, minSpare 10, acceptCount 100\n"]
    phases = [("cold", 0, 1), ("warm", 2, 3), ("hot", 4, 5)]
    rows = {p: [] for p, _, _ in phases}
    grow = []
    for run in runs(d):
        name = os.path.basename(run)
        r = {"quiet": quiet(run)}
        for p, a, b in phases:
            c = burst(os.path.join(run, f"{p}.csv.gz"))
            c["nstat"] = nstat_delta(os.path.join(run, f"nstat-{a}.txt"), os.path.join(run, f"nstat-{b}.txt"))
            r[p] = c
            n = c["nstat"]
            rows[p].append([name, n["TcpExtListenOverflows"], n["TcpExtListenDrops"], n["TcpExtTCPSynRetrans"],
                            n["TcpExtSyncookiesSent"], c["syn_retried"], c["over_1s"], c["errors"], c["spread_ms"],
                            c["p50"], c["p90"], c["p99"], c["max"], c["first_try_p50"], c["first_try_max"],
                            c["retried_p50"]])
        g = pool_growth(os.path.join(run, "pool-cold.csv.gz"), r["cold"]["start_ns"])
        st = read_json(os.path.join(run, "stats-1.json"))
        g["threads_started_jvm"] = st["threads_started"]
        g["jit_ms_total"] = st["jit_ms"]
        with open(os.path.join(run, "command.txt")) as f:
            for line in f:
                if line.startswith("started_after_ms"):
                    g["jvm_start_to_tomcat_started_ms"] = int(line.split()[1])
        r["pool"] = g
        r["gc_in_bursts"] = gc_in_bursts(run)
        grow.append([name, g["jvm_start_to_tomcat_started_ms"], g["pool11_ms"], g["pool50_ms"], g["pool100_ms"],
                     g["pool150_ms"], g["pool200_ms"], g["pool_max"]])
        q = r["quiet"]
        r["quiet_text"] = (f"{name}: loadavg {' '.join(q['loadavg_before'])} -> {' '.join(q['loadavg_after'] or [])}; "
                           f"cores: user+system {q['ours_pct']} %, nice>0 {q['nice19_pct']} %, idle {q['idle_pct']} %")
        res[name] = r
    hdr = ["run", "ListenOverflows", "ListenDrops", "SYN retransmits", "cookies sent", "clients with connect >0.9 s",
           "latency >1 s", "errors", "burst spread ms", "p50 ms", "p90 ms", "p99 ms", "max ms",
           "first-try clients p50 ms", "their max ms", "retried clients p50 ms"]
    for p, _, _ in phases:
        md.append(f"\n## {p}\n")
        md.append(table(hdr, rows[p] + [median_row("median", rows[p])]))
    md.append("\n## Pool growth in the cold burst (ms after the burst's first connect())\n")
    md.append(table(["run", "JVM start to Tomcat started ms", "pool 11", "50", "100", "150", "200", "largest"],
                    grow + [median_row("median", grow)]))
    md.append("\n## GC pauses within each burst (from its first connect() to its last response)\n")
    md.append(table(["run", "cold", "warm", "hot"],
                    [[k] + ["; ".join(res[k]["gc_in_bursts"][p]) or "none" for p in ("cold", "warm", "hot")]
                     for k in res]))
    md.append("\n## Quiet\n\n" + "\n".join("- " + res[k]["quiet_text"] for k in res))
    return res, md


def exp2(d):
    import summarize2
    return summarize2.exp2(d, quiet)


def exp3(d):
    import summarize2
    return summarize2.exp3(d, quiet)


def exp4(d):
    import summarize3
    return summarize3.exp4(d, quiet)


def exp5(d):
    import summarize3
    return summarize3.exp5(d, quiet)


def main():
    n, d = int(sys.argv[1]), sys.argv[2]
    fn = {1: exp1, 2: exp2, 3: exp3, 4: exp4, 5: exp5}[n]
    res, md = fn(d)
    with open(os.path.join(d, "summary.json"), "w") as f:
        json.dump(res, f, indent=1, sort_keys=True)
    with open(os.path.join(d, "summary.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    print("\n".join(md))


if __name__ == "__main__":
    main()
