#!/usr/bin/env bash
# Experiment 1: 400 connections at once into a freshly started Tomcat (each one GET /sleep?ms=100
# with Connection: close), then the same burst 2 s later (the pool grown, the JIT still cold),
# then again after 10 s of wrk traffic (JIT warm). nstat's listen-queue counters around each burst.
source "$(dirname "$0")/lib.sh"
build
OUT="$RESULTS/1-cold-burst"
mkdir -p "$OUT"; machine "$OUT/machine.txt"
JVM=(-Xms512m -Xmx512m -XX:+UseG1GC)
PROPS=(-Drig.threads=200 -Drig.minSpare=10 -Drig.acceptCount=100 -Drig.maxConnections=8192
       -Drig.record=5000 -Drig.samplerMicros=1000)
BURST=(python3 "$RIG/client/openloop.py" --port "$PORT" --burst 400 --path "/sleep?ms=100" --timeout 60)

for k in $(seq "$REPEATS"); do
    d="$OUT/run$k"; rm -rf "$d"; mkdir -p "$d"
    wait_quiet; load_snap "$d/loadavg.txt"; cpu_snap "$d/procstat.txt"
    nstat_snap "$d/nstat-0.txt"
    start_server "$d" "${JVM[@]}" -- "${PROPS[@]}"
    client "${BURST[@]}" --out "$d/cold.csv.gz" > "$d/cold.json"
    nstat_snap "$d/nstat-1.txt"
    sleep 2
    curl -sf "http://127.0.0.1:$PORT/dump?what=pool" > "$d/pool-cold.csv"
    stats "$d/stats-1.json"
    nstat_snap "$d/nstat-2.txt"
    client "${BURST[@]}" --out "$d/warm.csv.gz" > "$d/warm.json"
    nstat_snap "$d/nstat-3.txt"
    client wrk -t2 -c50 -d10s "http://127.0.0.1:$PORT/sleep?ms=1" > "$d/wrk-jit-warmup.txt"
    sleep 2
    nstat_snap "$d/nstat-4.txt"
    client "${BURST[@]}" --out "$d/hot.csv.gz" > "$d/hot.json"
    nstat_snap "$d/nstat-5.txt"
    curl -sf "http://127.0.0.1:$PORT/dump?what=requests" | gzip > "$d/requests.csv.gz"
    stats "$d/stats-2.json"; threadcpu "$d/threadcpu.json"
    stop_server
    load_snap "$d/loadavg.txt"; cpu_snap "$d/procstat.txt"
    gzip -f "$d/gc.log" "$d/pool-cold.csv"
    echo "run $k: cold $(cat "$d/cold.json")"
done
[ "${RIG_SUMMARIZE:-1}" = 0 ] || python3 "$RIG/tools/summarize.py" 1 "$OUT"
