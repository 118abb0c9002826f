#!/usr/bin/env bash
# Experiment 4: GET /bulkhead?mode=escape|fallback: a 100 ms call on a 4-thread hand-off pool
# (SynchronousQueue, AbortPolicy: capacity 40 calls/s). escape: the RejectedExecutionException
# reaches Tomcat (500, logged with its stack trace by StandardWrapperValve to stderr, which goes
# to a file); fallback: caught, 200 "fallback". Loads: closed loop wrk -t2 -c50 (10 s warm-up,
# 30 s measured) and open-loop Poisson 200/s (5 s warm-up, 30 s measured), each on a fresh server.
source "$(dirname "$0")/lib.sh"
build
OUT="$RESULTS/4-errors"
mkdir -p "$OUT"; machine "$OUT/machine.txt"
JVM=(-Xms512m -Xmx512m -XX:+UseG1GC)
PROPS=(-Drig.threads=200 -Drig.minSpare=10 -Drig.acceptCount=100 -Drig.maxConnections=8192 -Drig.bulkhead=4 -Drig.bulkhead.ms=100)
OPEN_RATE="${RIG_ERR_RATE:-200}"

snap() {  # snap N: the server's counters, its threads' CPU and the size of its error log
    stats "$d/stats-$1.json"; threadcpu "$d/threadcpu-$1.json"; cpu_snap "$d/procstat.txt"; nstat_snap "$d/nstat-$1.txt"
    echo "$(stat -c %s "$d/server.err") $(grep -c 'Servlet.service()' "$d/server.err" || true)" > "$d/errlog-$1.txt"
}
trim_log() {  # keeps the first 80 lines of the error log; its size and count are in errlog-*.txt
    head -80 "$d/server.err" > "$d/server.err.head"; rm -f "$d/server.err"; gzip -f "$d/gc.log"
}

for mode in escape fallback; do
    url="http://127.0.0.1:$PORT/bulkhead?mode=$mode"
    for k in $(seq "$REPEATS"); do
        d="$OUT/closed-$mode/run$k"; rm -rf "$d"; mkdir -p "$d"
        wait_quiet; load_snap "$d/loadavg.txt"; cpu_snap "$d/procstat.txt"
        start_server "$d" "${JVM[@]}" -- "${PROPS[@]}"
        client wrk -t2 -c50 -d10s --timeout 10s "$url" > "$d/wrk-warmup.txt"
        snap 0
        client wrk -t2 -c50 -d30s --timeout 10s --latency "$url" > "$d/wrk.txt"
        snap 1
        stop_server; load_snap "$d/loadavg.txt"; cpu_snap "$d/procstat.txt"; trim_log
        echo "closed-$mode run $k: $(grep -E 'Requests/sec|Non-2xx' "$d/wrk.txt" | tr -s ' ' | tr '\n' ' ')"
    done
    for k in $(seq "$REPEATS"); do
        d="$OUT/open-$mode/run$k"; rm -rf "$d"; mkdir -p "$d"
        wait_quiet; load_snap "$d/loadavg.txt"; cpu_snap "$d/procstat.txt"
        start_server "$d" "${JVM[@]}" -- "${PROPS[@]}"
        client python3 "$RIG/client/openloop.py" --port "$PORT" --path "/bulkhead?mode=$mode" \
            --rate "$OPEN_RATE" --duration 5 --seed $((100 + k)) --out /dev/null > "$d/warmup.json"
        snap 0
        client python3 "$RIG/client/openloop.py" --port "$PORT" --path "/bulkhead?mode=$mode" \
            --rate "$OPEN_RATE" --duration 30 --seed "$k" --out "$d/client.csv.gz" > "$d/client.json"
        snap 1
        stop_server; load_snap "$d/loadavg.txt"; cpu_snap "$d/procstat.txt"; trim_log
        echo "open-$mode run $k: $(cat "$d/client.json")"
    done
done
[ "${RIG_SUMMARIZE:-1}" = 0 ] || python3 "$RIG/tools/summarize.py" 4 "$OUT"
