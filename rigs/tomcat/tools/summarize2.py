"""Summaries of experiments 2 (CPU-bound) and 3 (allocation)."""
import gzip
import os
import re
import tempfile

from common import (fmt, median, median_row, nstat_delta, pct, read_csv, read_json, runs, spread,
                    table, thread_groups, wrk)
import gcsum


def gc_window(run, s0, s1):
    """gcsum over the measured window: from the uptime of stats s0 to that of s1."""
    lo, hi = s0["uptime_ms"] / 1000, s1["uptime_ms"] / 1000
    with tempfile.NamedTemporaryFile("w", suffix=".log", delete=False) as t:
        with gzip.open(os.path.join(run, "gc.log.gz"), "rt") as f:
            t.write(f.read())
    try:
        return gcsum.summarise(t.name, lo, hi)
    finally:
        os.unlink(t.name)


def cpu_window(run, s0, s1):
    """CPU over the window: the process's (ms), and of its GC and JIT threads (/proc)."""
    t0 = thread_groups(os.path.join(run, "threadcpu-0.json"))
    t1 = thread_groups(os.path.join(run, "threadcpu-1.json"))
    secs = (s1["uptime_ms"] - s0["uptime_ms"]) / 1000
    return {
        "seconds": secs,
        "process_cpu_s": (s1["process_cpu_ns"] - s0["process_cpu_ns"]) / 1e9,
        "gc_threads_cpu_s": (t1["gc"] - t0["gc"]) / 1e9,
        "jit_threads_cpu_s": (t1["jit"] - t0["jit"]) / 1e9,
        "exec_cpu_s": (s1.get("jcpu_tomcat_exec", 0) - s0.get("jcpu_tomcat_exec", 0)) / 1e9,
        "poller_cpu_s": (s1.get("jcpu_tomcat_poller", 0) - s0.get("jcpu_tomcat_poller", 0)) / 1e9,
        "acceptor_cpu_s": (s1.get("jcpu_tomcat_acceptor", 0) - s0.get("jcpu_tomcat_acceptor", 0)) / 1e9,
    }


def quiet_text(run, quiet):
    q = quiet(run)
    return (f"{run.split('results/')[-1]}: loadavg {' '.join(q['loadavg_before'])} -> "
            f"{' '.join(q['loadavg_after'] or [])}; cores: user+system (all processes at nice <= 0, "
            f"the rig's included) {q['ours_pct']} %, nice>0 {q['nice19_pct']} %, idle {q['idle_pct']} %"), q


BUCKETS = [(1, 1), (2, 2), (3, 5), (6, 10), (11, 20), (21, 50), (51, 100), (101, 200),
           (201, 500), (501, 1000), (1001, 2000), (2001, 3000)]


def exp2(d, quiet):
    res, md = {}, ["# 2. CPU-bound: GET /spin (fixed work, ~2 ms of CPU warm), 200 threads, 2 cores\n"]
    qs = []
    titles = {"c100": "100 connections (wrk -t2 -c100 -d30s, after 10 s warm-up), acceptCount 100",
              "c400": "400 connections (wrk -t2 -c400 -d30s, after 10 s warm-up), acceptCount 100",
              "c400-backlog1000": "400 connections, acceptCount 1000 (the listen queue holds wrk's 400 connects)"}
    for c in titles:
        if not os.path.isdir(os.path.join(d, c)):
            continue
        rows = []
        for run in runs(os.path.join(d, c)):
            name = os.path.basename(run)
            s0, s1 = read_json(os.path.join(run, "stats-0.json")), read_json(os.path.join(run, "stats-1.json"))
            w = wrk(os.path.join(run, "wrk.txt"))
            g = gc_window(run, s0, s1)
            cpu = cpu_window(run, s0, s1)
            served = s1["valve_2xx_count"] - s0["valve_2xx_count"]
            servlet_cpu = (s1["valve_2xx_cpu_ns"] - s0["valve_2xx_cpu_ns"]) / max(1, served) / 1e6
            proc_cpu = cpu["process_cpu_s"] * 1000 / max(1, served)
            ns = nstat_delta(os.path.join(run, "nstat-0.txt"), os.path.join(run, "nstat-1.txt"))
            txt, q = quiet_text(run, quiet)
            qs.append(txt)
            res[f"{c}/{name}"] = {"wrk": w, "gc": g, "cpu": cpu, "served": served, "nstat": ns,
                                  "servlet_cpu_ms": servlet_cpu, "process_cpu_ms_per_req": proc_cpu,
                                  "quiet": q}
            rows.append([name, w["rps"], w["mean_ms"], w["p50_ms"], w["p90_ms"], w["p99_ms"], w["max_ms"],
                         w["non2xx"] + sum(w["socket_errors"].values()), servlet_cpu, proc_cpu,
                         100 * cpu["process_cpu_s"] / cpu["seconds"] / 2,
                         g["collections"], g["pause_total_ms"], g["pause_max_ms"],
                         100 * cpu["gc_threads_cpu_s"] / cpu["seconds"] / 2,
                         100 * cpu["jit_threads_cpu_s"] / cpu["seconds"] / 2,
                         ns["TcpPassiveOpens"], ns["TcpExtListenOverflows"], ns["TcpExtTCPSynRetrans"]])
        md.append(f"\n## {titles[c]}\n")
        md.append(table(["run", "req/s", "mean ms", "p50", "p90", "p99", "max", "errors",
                         "servlet CPU ms/req", "process CPU ms/req", "process CPU % of 2 cores",
                         "GCs", "pause total ms", "longest pause ms", "GC threads % of 2 cores",
                         "JIT % of 2 cores", "connections opened", "ListenOverflows", "SYN retransmits"],
                        rows + [median_row("median", rows)]))

    # warm-up series: the servlet's thread CPU by request number, on a fresh JVM
    seq_runs = runs(os.path.join(d, "cold-seq"))
    per_run = []
    for run in seq_runs:
        seq = read_csv(os.path.join(run, "seq.csv.gz"))
        rec = read_csv(os.path.join(run, "requests.csv.gz"))
        cpu = [int(r["cpu_ns"]) / 1e6 for r in seq]
        wall = [(int(r["done_ns"]) - int(r["start_ns"])) / 1e6 for r in seq]
        pcpu = [int(r["proc_cpu_ns"]) for r in rec]
        warm = median(cpu[2000:3000])
        b = []
        for lo, hi in BUCKETS:
            sl = slice(lo - 1, hi)
            # process CPU per request in the bucket (10 ms ticks: only over >= 100 requests)
            pc = ((pcpu[hi - 1] - pcpu[lo - 2]) / (hi - lo + 1) / 1e6) if lo >= 101 and len(pcpu) >= hi else None
            b.append({"from": lo, "to": hi, "servlet_cpu_ms": median(cpu[sl]), "mult": median(cpu[sl]) / warm,
                      "wall_ms": median(wall[sl]), "process_cpu_ms": pc})
        s1 = read_json(os.path.join(run, "stats-1.json"))
        per_run.append({"warm_ms": warm, "buckets": b, "jit_ms": s1["jit_ms"],
                        "process_cpu_s": s1["process_cpu_ns"] / 1e9})
        txt, q = quiet_text(run, quiet)
        qs.append(txt)
    res["cold-seq"] = per_run
    rows = []
    for i, (lo, hi) in enumerate(BUCKETS):
        vals = [r["buckets"][i] for r in per_run]
        row = [f"{lo}" if lo == hi else f"{lo}-{hi}"]
        for key in ("servlet_cpu_ms", "mult", "wall_ms", "process_cpu_ms"):
            v = [x[key] for x in vals if x[key] is not None]
            lo_, hi_ = spread(v)
            row.append(f"**{fmt(median(v), 3)}** ({fmt(lo_, 3)}-{fmt(hi_, 3)})" if v else "-")
        rows.append(row)
    md.append("\n## Warm-up series: one sequential client on a fresh JVM, 3000 requests (median of each "
              "run's median in the bucket; brackets: the runs' range)\n")
    md.append("warm reference = the median servlet CPU of requests 2001-3000 in the same run: "
              + ", ".join(f"{r['warm_ms']:.3f} ms" for r in per_run) + "\n")
    md.append(table(["requests", "servlet CPU ms", "multiplier vs warm", "client latency ms",
                     "process CPU ms/req (all threads)"], rows))

    for sub, title in (("cold-c100", "A fresh JVM under wrk -t2 -c100 -d20s at once (whole 20 s, warm-up included)"),
                       ("cold-c100-0930", "The same, an earlier series of three runs (09:30, the one before the runs above)"),
                       ("cold-c100-jitlog", "The same with -XX:+PrintCompilation (the JIT's log in server.out.gz)")):
        if os.path.isdir(os.path.join(d, sub)):
            cold_c100(d, sub, title, res, md, qs, quiet)
    md.append("\n## Quiet\n\n" + "\n".join("- " + q for q in qs))
    return res, md


def cold_c100(d, sub, title, res, md, qs, quiet):
    """A fresh JVM under wrk -c100 at once: per second since the first request."""
    rows, series = [], []
    for run in runs(os.path.join(d, sub)):
        name = os.path.basename(run)
        w = wrk(os.path.join(run, "wrk.txt"))
        rec = read_csv(os.path.join(run, "requests.csv.gz"))
        t0 = min(int(r["start_ns"]) for r in rec)
        secs, pmax = {}, {}
        for r in rec:
            s = (int(r["end_ns"]) - t0) // 1_000_000_000
            secs.setdefault(s, []).append(int(r["cpu_ns"]) / 1e6)
            pmax[s] = max(pmax.get(s, 0), int(r["proc_cpu_ns"]))
        ser, prev = {}, None
        for s, v in sorted(secs.items()):
            # process CPU (all threads, 10 ms ticks) per request completed in this second
            pc = (pmax[s] - prev) / len(v) / 1e6 if prev is not None else None
            ser[s] = (len(v), median(v), pc)
            prev = pmax[s]
        series.append(ser)
        rows.append([name, w["rps"], w["mean_ms"], w["p50_ms"], w["p90_ms"], w["p99_ms"], w["max_ms"]])
        txt, q = quiet_text(run, quiet)
        qs.append(txt)
        res[f"{sub}/{name}"] = {"wrk": w, "per_second": series[-1]}
    md.append(f"\n## {title}\n")
    md.append(table(["run", "req/s", "mean ms", "p50", "p90", "p99", "max"], rows + [median_row("median", rows)]))
    srows = []
    for s in range(0, 21):
        vals = [x.get(s) for x in series]
        if all(v is None for v in vals):
            continue
        srows.append([f"{s}-{s + 1}"] + [f"{v[0]} / {v[1]:.2f} / {fmt(v[2], 2)}" if v else "-" for v in vals])
    md.append("\nIn each second since the first request: requests completed / their median servlet CPU "
              "(ms) / the process's CPU (all threads, JIT and GC included) per request completed (ms):\n")
    md.append(table(["second"] + [os.path.basename(r) for r in runs(os.path.join(d, sub))], srows))


def eden_mib(run):
    """The eden's capacity as the GC log states it at its last young collection (MiB)."""
    eden, region = None, None
    with gzip.open(os.path.join(run, "gc.log.gz"), "rt") as f:
        for line in f:
            m = re.search(r"Heap Region Size: (\d+)M", line)
            if m:
                region = int(m[1])
            m = re.search(r"Eden regions: \d+->\d+\((\d+)\)", line)
            if m and region:
                eden = int(m[1]) * region
            m = re.search(r"PSYoungGen: \d+K\(\d+K\)->\d+K\(\d+K\) Eden: \d+K\((\d+)K\)", line)
            if m:
                eden = int(m[1]) / 1024
    return eden


def exp3(d, quiet):
    res, md = {}, ["# 3. Allocation: GET /alloc?kib=256&keep=1 at a constant open-loop rate, -Xms512m -Xmx512m\n"]
    qs = []
    for gc in ("parallel", "g1", "zgc"):
        p = os.path.join(d, gc)
        if not os.path.isdir(p):
            continue
        rows = []
        for run in runs(p):
            name = os.path.basename(run)
            s0, s1 = read_json(os.path.join(run, "stats-0.json")), read_json(os.path.join(run, "stats-1.json"))
            c = read_json(os.path.join(run, "client.json"))
            g = gc_window(run, s0, s1)
            cpu = cpu_window(run, s0, s1)
            served = s1["valve_2xx_count"] - s0["valve_2xx_count"]
            alloc_kib = (s1["valve_2xx_alloc_bytes"] - s0["valve_2xx_alloc_bytes"]) / max(1, served) / 1024
            eden = eden_mib(run)
            per_gc = served / g["collections"] if g["collections"] else None
            txt, q = quiet_text(run, quiet)
            qs.append(txt)
            res[f"{gc}/{name}"] = {"client": c, "gc": g, "cpu": cpu, "served": served,
                                   "alloc_kib_per_req": alloc_kib, "eden_mib": eden,
                                   "requests_per_gc": per_gc, "quiet": q}
            rows.append([name, c["offered_rps"], c["throughput_rps"], c["latency_ms"]["p50"],
                         c["latency_ms"]["p99"], c["latency_ms"]["max"], alloc_kib, eden,
                         (eden * 1024 / alloc_kib) if eden else None, (64 * 1024 / alloc_kib),
                         per_gc, g["collections"], g["pauses"], g["pause_total_ms"], g["pause_max_ms"],
                         100 * cpu["gc_threads_cpu_s"] / cpu["seconds"] / 2,
                         100 * cpu["gc_threads_cpu_s"] / max(1e-9, cpu["process_cpu_s"]),
                         1000 * cpu["process_cpu_s"] / max(1, served)])
        md.append(f"\n## {gc}\n")
        md.append(table(["run", "offered req/s", "throughput", "p50 ms", "p99 ms", "max ms",
                         "alloc KiB/req (measured)", "eden MiB (log)", "eden/alloc (req)",
                         "64 MiB/alloc (req)", "req per collection", "collections", "pauses",
                         "pause total ms", "longest pause ms", "GC threads % of 2 cores",
                         "GC share of process CPU %", "process CPU ms/req"],
                        rows + [median_row("median", rows)]))
    md.append("\n## Quiet\n\n" + "\n".join("- " + q for q in qs))
    return res, md
