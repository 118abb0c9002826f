#!/usr/bin/env python3
"""Summarise a unified GC log (-Xlog:gc*:file=F:uptime,level,tags) of Parallel, G1 or ZGC
(JDK 17), optionally only the events whose uptime lies in [--from, --to] seconds.

Prints JSON: collector, collections (Parallel/G1: pauses named "Pause Young"/"Pause Full" and
G1's remark/cleanup; ZGC: "Garbage Collection" cycles), pauses (every stop-the-world pause),
pause_total_ms, pause_max_ms, pause_p50_ms, pause_p99_ms, gc_cpu_s (the log's gc,cpu
User+Sys, where the collector prints it), young_pauses, full_pauses, concurrent_cycles,
and the interval between collections."""
import argparse
import json
import re

LINE = re.compile(r"^\[(?P<up>[\d.]+)s\]\[(?P<lvl>\w+)\s*\]\[(?P<tags>[\w,]+)\s*\] (?P<msg>.*)$")
PAUSE = re.compile(r"GC\((?P<id>\d+)\) (?P<what>Pause .*?)"
                   r"(?: \d+[KMG]->\d+[KMG]\(\d+[KMG]\))? (?P<ms>[\d.]+)ms$")
CPU = re.compile(r"GC\((?P<id>\d+)\) User=(?P<u>[\d.]+)s Sys=(?P<s>[\d.]+)s Real=(?P<r>[\d.]+)s")
ZCYCLE = re.compile(r"GC\((?P<id>\d+)\) Garbage Collection \((?P<cause>[^)]*)\)")


def summarise(path, lo=None, hi=None):
    collector = None
    pauses, cpu, zcycles, starts = [], 0.0, 0, []
    kinds = {}
    with open(path, errors="replace") as f:
        for raw in f:
            m = LINE.match(raw.rstrip("\n"))
            if not m:
                continue
            up, tags, msg = float(m["up"]), m["tags"], m["msg"]
            if msg.startswith("Using "):
                collector = msg[len("Using "):]
            if (lo is not None and up < lo) or (hi is not None and up > hi):
                continue
            if tags in ("gc", "gc,phases"):
                p = PAUSE.search(msg)
                if p and (tags == "gc" or collector == "The Z Garbage Collector"):
                    what = p["what"].strip()
                    pauses.append(float(p["ms"]))
                    kinds[what] = kinds.get(what, 0) + 1
                    if "Young" in what or "Full" in what:
                        starts.append(up)
                z = ZCYCLE.search(msg)
                if z and tags == "gc":
                    zcycles += 1
                    starts.append(up)
            if tags == "gc,cpu":
                c = CPU.search(msg)
                if c:
                    cpu += float(c["u"]) + float(c["s"])
    pauses_sorted = sorted(pauses)

    def q(p):
        if not pauses_sorted:
            return None
        return pauses_sorted[min(len(pauses_sorted) - 1, int(p / 100 * len(pauses_sorted)))]

    young = sum(v for k, v in kinds.items() if "Young" in k)
    full = sum(v for k, v in kinds.items() if "Full" in k)
    collections = zcycles if zcycles else young + full
    gaps = [b - a for a, b in zip(starts, starts[1:])]
    return {
        "collector": collector,
        "collections": collections,
        "young_pauses": young, "full_pauses": full,
        "pauses": len(pauses), "pause_kinds": kinds,
        "pause_total_ms": round(sum(pauses), 3),
        "pause_max_ms": max(pauses) if pauses else 0.0,
        "pause_p50_ms": q(50), "pause_p99_ms": q(99),
        "gc_cpu_s_logged": round(cpu, 3),
        "mean_interval_s": round(sum(gaps) / len(gaps), 4) if gaps else None,
    }


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("log")
    ap.add_argument("--from", dest="lo", type=float)
    ap.add_argument("--to", dest="hi", type=float)
    a = ap.parse_args()
    print(json.dumps(summarise(a.log, a.lo, a.hi)))
