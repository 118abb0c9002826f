#!/usr/bin/env python3
"""The closed loop on real data: a real Tomcat's access logs at three loads, imported, played,
and compared with what the load generator measured.

For each run of `rigs/tomcat/results/5-dashboard/rate<R>/run<k>` (an embedded Tomcat 10.1 on 20
threads, GET /dashboard, open-loop Poisson arrivals, a connection per request, 40 s measured;
section 5 of rigs/tomcat/results/README.md) this:

1. imports `results/access/dashboard-rate<R>-run<k>.log.gz` with the connector's settings in
   `application.yml` (`threadlab import traces LOG --config application.yml`): the endpoint's
   latency is the log's %D as a quantile table, the rate is the log's own, except above
   capacity, where the log counts what the server answered and the offered rate the load
   generator recorded is given with --rate;
2. plays the preset for the 40 s measured and lets it drain (a last load phase at 0.001/s), so
   every request is answered as the real client's were;
3. compares throughput (answered within the 40 s window, per second) within 5 % and the
   client's p50 and p99 within 15 % with the run's `client.json`.

Usage: compare.py [RESULTS] [THREADLAB]   (default ../../rigs/tomcat/results, threadlab on PATH).
Exit 1 when a figure is out of its tolerance, 2 when the results are not there.
"""
import gzip, json, os, subprocess, sys, tempfile

here = os.path.dirname(os.path.abspath(__file__))
results = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "../../rigs/tomcat/results")
threadlab = sys.argv[2] if len(sys.argv) > 2 else "threadlab"
PATTERN = '%h %l %u %t "%r" %s %b %D %T %{begin:msec}t %I'
WINDOW = 40
SATURATED = {"240"}  # above the ~200/s capacity: the log shows only what was served

dash = os.path.join(results, "5-dashboard")
if not os.path.isdir(dash):
    print(f"no rig results in {dash}", file=sys.stderr)
    sys.exit(2)

def sh(*args):
    out = subprocess.run(args, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"{' '.join(args)}: exit {out.returncode}\n{out.stderr}")
    return out.stdout

rows, worst = [], {"throughput": 0.0, "p50": 0.0, "p99": 0.0}
with tempfile.TemporaryDirectory() as tmp:
    for rate in sorted(os.listdir(dash)):
        if not rate.startswith("rate"):
            continue
        r = rate[4:]
        for run in sorted(os.listdir(os.path.join(dash, rate))):
            client = json.load(open(os.path.join(dash, rate, run, "client.json")))
            log = os.path.join(results, "access", f"dashboard-{rate}-{run}.log.gz")
            plain = os.path.join(tmp, f"{rate}-{run}.log")
            with gzip.open(log, "rt") as f, open(plain, "w") as g:
                g.write(f.read())
            preset = os.path.join(tmp, f"{rate}-{run}.toml")
            args = [threadlab, "import", "traces", plain, "--config", os.path.join(here, "application.yml"),
                    "--log-format", PATTERN, "--cores", "2", "--duration", f"{WINDOW + 20}s", "-o", preset]
            if r in SATURATED:
                args += ["--rate", f"{client['offered_rps']:.3f}"]
            sh(*args)
            report = json.loads(sh(threadlab, "run", preset, "--format", "json",
                                   "--set", f'load.phases=[{{ at = "{WINDOW}s", rate = 0.001 }}]'))
            window = report["goodput_timeline"][:WINDOW]
            sim = {"throughput": sum(window) / WINDOW, "p50": report["latency_ms"]["p50"], "p99": report["latency_ms"]["p99"]}
            real = {"throughput": client["throughput_rps"], "p50": client["latency_ms"]["p50"], "p99": client["latency_ms"]["p99"]}
            diff = {k: (sim[k] - real[k]) / real[k] for k in sim}
            for k in worst:
                worst[k] = max(worst[k], abs(diff[k]))
            rate_used = "given " + f"{client['offered_rps']:.1f}" if r in SATURATED else "the log's"
            rows.append(f"| {r} | {run} | {rate_used} | {real['throughput']:.1f} | {sim['throughput']:.1f} | {diff['throughput']:+.1%} "
                        f"| {real['p50']:.1f} | {sim['p50']:.1f} | {diff['p50']:+.1%} | {real['p99']:.1f} | {sim['p99']:.1f} | {diff['p99']:+.1%} |")

print("| offered/s | run | rate | throughput/s real | threadlab | diff | p50 ms real | threadlab | diff | p99 ms real | threadlab | diff |")
print("| ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
print("\n".join(rows))
ok = worst["throughput"] <= 0.05 and worst["p50"] <= 0.15 and worst["p99"] <= 0.15
print(f"\nlargest differences: throughput {worst['throughput']:.1%} (allowed 5 %), p50 {worst['p50']:.1%}, "
      f"p99 {worst['p99']:.1%} (allowed 15 %): {'within' if ok else 'OUT OF'} tolerance")
sys.exit(0 if ok else 1)
