"""Summaries of experiments 4 (the error path) and 5 (the dashboard's access logs)."""
import gzip
import io
import os
import re

from summarize2 import gc_window
from common import (fmt, median, median_row, nstat_delta, pct, read_csv, read_json, runs, spread,
                    table, thread_groups, wrk)


def quiet_text(run, quiet):
    q = quiet(run)
    return (f"{run.split('results/')[-1]}: loadavg {' '.join(q['loadavg_before'])} -> "
            f"{' '.join(q['loadavg_after'] or [])}; cores: user+system (all processes at nice <= 0, "
            f"the rig's included) {q['ours_pct']} %, nice>0 {q['nice19_pct']} %, idle {q['idle_pct']} %"), q


def delta(s0, s1, k):
    return s1.get(k, 0) - s0.get(k, 0)


def exp4(d, quiet):
    res, md = {}, ["# 4. Error path: GET /bulkhead, a 100 ms call on a 4-thread hand-off bulkhead (AbortPolicy), 200 Tomcat threads\n"]
    qs = []
    for variant in ("closed-escape", "closed-fallback", "open-escape", "open-fallback"):
        p = os.path.join(d, variant)
        if not os.path.isdir(p):
            continue
        rows = []
        for run in runs(p):
            name = os.path.basename(run)
            s0, s1 = read_json(os.path.join(run, "stats-0.json")), read_json(os.path.join(run, "stats-1.json"))
            secs = (s1["uptime_ms"] - s0["uptime_ms"]) / 1000
            good = delta(s0, s1, "bulkhead_good") / secs
            esc = delta(s0, s1, "bulkhead_escaped") / secs
            fb = delta(s0, s1, "bulkhead_fallback") / secs
            n2, n5 = delta(s0, s1, "valve_2xx_count"), delta(s0, s1, "valve_5xx_count")
            c2 = delta(s0, s1, "valve_2xx_cpu_ns") / max(1, n2) / 1e6
            c5 = delta(s0, s1, "valve_5xx_cpu_ns") / max(1, n5) / 1e6 if n5 else None
            proc = delta(s0, s1, "process_cpu_ns") / 1e9
            t0 = thread_groups(os.path.join(run, "threadcpu-0.json"))
            t1 = thread_groups(os.path.join(run, "threadcpu-1.json"))
            gc_pct = 100 * (t1["gc"] - t0["gc"]) / 1e9 / secs / 2
            e0 = open(os.path.join(run, "errlog-0.txt")).read().split()
            e1 = open(os.path.join(run, "errlog-1.txt")).read().split()
            logged = int(e1[1]) - int(e0[1])
            log_bytes = (int(e1[0]) - int(e0[0])) / max(1, logged) if logged else None
            ns = nstat_delta(os.path.join(run, "nstat-0.txt"), os.path.join(run, "nstat-1.txt"))
            if variant.startswith("closed"):
                w = wrk(os.path.join(run, "wrk.txt"))
                lat = (w["p50_ms"], w["p99_ms"])
                load = w["rps"]
            else:
                c = read_json(os.path.join(run, "client.json"))
                lat = (c["latency_ms"]["p50"], c["latency_ms"]["p99"])
                load = c["offered_rps"]
                w = c
            g = gc_window(run, s0, s1)
            txt, q = quiet_text(run, quiet)
            qs.append(txt)
            res[f"{variant}/{name}"] = {"client": w, "gc": g, "good_per_s": good, "escaped_per_s": esc,
                                       "fallback_per_s": fb, "valve_2xx_cpu_ms": c2, "valve_5xx_cpu_ms": c5,
                                       "process_cpu_s": proc, "seconds": secs, "logged_errors": logged,
                                       "log_bytes_per_error": log_bytes, "nstat": ns, "quiet": q}
            rows.append([name, load, good, esc, fb, (n2 + n5) / secs, lat[0], lat[1],
                         100 * proc / secs / 2, round(1e6 * proc / max(1, n2 + n5)), round(1000 * c2),
                         round(1000 * c5) if c5 is not None else None,
                         logged / secs, log_bytes, ns["TcpPassiveOpens"] / secs, gc_pct,
                         g["collections"], g["pause_total_ms"], g["pause_max_ms"]])
        md.append(f"\n## {variant}\n")
        md.append(table(["run", "req/s (closed: wrk's; open: offered)", "good answers/s", "500s/s",
                         "fallbacks/s", "responses/s (server)", "p50 ms", "p99 ms",
                         "process CPU % of 2 cores", "process CPU us/response",
                         "handler CPU us per 2xx (valve)", "handler CPU us per 500 (valve)",
                         "stack traces logged/s", "log bytes per error", "new connections/s",
                         "GC threads % of 2 cores", "GCs", "pause total ms", "longest pause ms"],
                        rows + [median_row("median", rows)]))
    md.append("\n## Quiet\n\n" + "\n".join("- " + q for q in qs))
    return res, md


def calls_table(res):
    """The latencies the server drew for each call (ms), all runs of a rate pooled by median."""
    rows = []
    for key in sorted(res, key=lambda k: (int(k.split("/")[0][4:]), k)):
        c = res[key]["calls_ms"]
        rows.append([key] + [c[n][m] for n in ("user", "orders", "recommendations") for m in ("mean", "p50", "p99")])
    return table(["run", "user mean", "p50", "p99", "orders mean", "p50", "p99", "recs mean", "p50", "p99"], rows)


ACCESS = re.compile(r'^(\S+) \S+ \S+ \[[^\]]+\] "(?P<req>[^"]*)" (?P<status>\d{3}) \S+ '
                    r'(?P<D>\d+) (?P<T>[\d.]+) (?P<begin>\d+) (?P<thread>\S+)$')


def access(path):
    out = []
    with gzip.open(path, "rt") as f:
        for line in f:
            m = ACCESS.match(line.rstrip("\n"))
            if m:
                out.append(m)
    return out


def exp5(d, quiet):
    res, md = {}, ["# 5. Dashboard behind 20 Tomcat threads, open-loop Poisson arrivals, a connection per request\n"]
    acc_dir = os.path.join(os.path.dirname(d.rstrip("/")), "access")
    qs = []
    for rate_dir in sorted((x for x in os.listdir(d) if x.startswith("rate")), key=lambda x: int(x[4:])):
        rows = []
        for run in runs(os.path.join(d, rate_dir)):
            name = os.path.basename(run)
            k = name[3:]
            c = read_json(os.path.join(run, "client.json"))
            s0, s1 = read_json(os.path.join(run, "stats-0.json")), read_json(os.path.join(run, "stats-1.json"))
            log = access(os.path.join(acc_dir, f"dashboard-{rate_dir}-run{k}.log.gz"))
            dms = [int(m["D"]) / 1000 for m in log]  # %D: microseconds in Tomcat 10.1
            bad = sum(1 for m in log if m["status"] != "200")
            ns = nstat_delta(os.path.join(run, "nstat-0.txt"), os.path.join(run, "nstat-1.txt"))
            # join the client's rows with the server's records by request id
            cl = {int(r["id"]): r for r in read_csv(os.path.join(run, "client.csv.gz"))}
            rec = [r for r in read_csv(os.path.join(run, "requests.csv.gz")) if int(r["id"]) >= 0]
            waits, trace = [], []
            t0 = min(int(r["sched_ns"]) for r in cl.values())
            for r in sorted(rec, key=lambda r: int(cl[int(r["id"])]["sched_ns"]) if int(r["id"]) in cl else 0):
                cr = cl.get(int(r["id"]))
                if cr is None:
                    continue
                waits.append((int(r["start_ns"]) - int(cr["sched_ns"])) / 1e6)
                trace.append(((int(cr["sched_ns"]) - t0) / 1e6, int(r["a_us"]) / 1000,
                              int(r["b_us"]) / 1000, int(r["c_us"]) / 1000))
            # mtime 0: the same data gives the same bytes when the summary is made again
            with io.TextIOWrapper(gzip.GzipFile(os.path.join(acc_dir, f"dashboard-{rate_dir}-run{k}.trace.csv.gz"),
                                                "wb", mtime=0)) as f:
                f.write("# arrival (client's scheduled time, ms since the first) and the latencies (ms) the\n"
                        "# server drew for this request's calls; see README.md\n")
                f.write("at,user,orders,recommendations\n")
                for t in trace:
                    f.write(f"{t[0]:.3f},{t[1]:.3f},{t[2]:.3f},{t[3]:.3f}\n")
            calls = {n: [t[i] for t in trace] for i, n in ((1, "user"), (2, "orders"), (3, "recommendations"))}
            txt, q = quiet_text(run, quiet)
            qs.append(txt)
            secs = (s1["uptime_ms"] - s0["uptime_ms"]) / 1000
            g = gc_window(run, s0, s1)
            res[f"{rate_dir}/{name}"] = {
                "gc": g,
                "client": c, "access_lines": len(log), "access_non200": bad,
                "access_ms": {"mean": sum(dms) / len(dms) if dms else None, "p50": pct(dms, 50),
                              "p90": pct(dms, 90), "p99": pct(dms, 99), "max": max(dms) if dms else None},
                "wait_before_servlet_ms": {"p50": pct(waits, 50), "p99": pct(waits, 99), "max": max(waits) if waits else None},
                "served_per_s_server": (s1["served"] - s0["served"]) / secs,
                "calls_ms": {n: {"p50": pct(v, 50), "p99": pct(v, 99), "mean": sum(v) / len(v) if v else None}
                             for n, v in calls.items()},
                "nstat": ns, "quiet": q}
            lm = c["latency_ms"]
            errs = sum(c["errors"].values())
            rows.append([name, c["offered_rps"], c["throughput_rps"], c["throughput_total_rps"],
                         lm["p50"], lm["p90"], lm["p99"], lm["max"],
                         pct(dms, 50), pct(dms, 90), pct(dms, 99), pct(waits, 50), pct(waits, 99),
                         errs, bad, ns["TcpExtListenOverflows"], c["drain_s"],
                         g["collections"], g["pause_total_ms"], g["pause_max_ms"]])
        md.append(f"\n## {rate_dir[4:]} req/s offered\n")
        md.append(table(["run", "offered req/s", "throughput (done in window)/s", "throughput (all done)/s",
                         "client p50 ms", "p90", "p99", "max", "access %D p50 ms", "p90", "p99",
                         "wait before servlet p50 ms", "p99", "client errors", "access non-200",
                         "ListenOverflows", "drain after arrivals s", "GCs", "pause total ms",
                         "longest pause ms"],
                        rows + [median_row("median", rows)]))
    md.append("\n## The calls' latencies as drawn (ms; the trace files hold each request's)\n")
    md.append(calls_table(res))
    md.append("\n## Quiet\n\n" + "\n".join("- " + q for q in qs))
    return res, md
