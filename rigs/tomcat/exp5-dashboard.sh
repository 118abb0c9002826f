#!/usr/bin/env bash
# Experiment 5 (access logs): GET /dashboard on 20 Tomcat threads: user (lognormal p50 20 ms,
# p99 80 ms) on pool "user" (20 threads), then orders (uniform 30-70 ms) and recommendations
# (lognormal p50 50 ms, p99 250 ms) at once on pool "downstream" (32 threads); both pools core =
# max, ArrayBlockingQueue(100), AbortPolicy. AccessLogValve with %D and %T. Open-loop Poisson
# arrivals, a new connection per request, at three rates (below, near, above capacity ~200/s),
# 10 s warm-up at 50/s (marked phase=warmup in the log), then 40 s measured (phase=measure).
source "$(dirname "$0")/lib.sh"
build
OUT="$RESULTS/5-dashboard"
ACC="$RESULTS/access"
mkdir -p "$OUT" "$ACC"; machine "$OUT/machine.txt"
JVM=(-Xms512m -Xmx512m -XX:+UseG1GC)
PATTERN='%h %l %u %t "%r" %s %b %D %T %{begin:msec}t %I'
PROPS=(-Drig.threads=20 -Drig.minSpare=10 -Drig.acceptCount=100 -Drig.maxConnections=8192
       -Drig.dash.user=lognormal:20:80 -Drig.dash.orders=uniform:30:70 -Drig.dash.recs=lognormal:50:250
       -Drig.dash.userPool=20 -Drig.dash.downPool=32 -Drig.dash.queue=100 -Drig.record=40000)
DURATION="${RIG_DASH_S:-40}"

for rate in ${RIG_DASH_RATES:-100 180 240}; do
    for k in $(seq "$REPEATS"); do
        d="$OUT/rate$rate/run$k"; rm -rf "$d"; mkdir -p "$d"
        wait_quiet; load_snap "$d/loadavg.txt"; cpu_snap "$d/procstat.txt"
        start_server "$d" "${JVM[@]}" -- "${PROPS[@]}" "-Drig.accessLog=$d/access" "-Drig.accessPattern=$PATTERN"
        client python3 "$RIG/client/openloop.py" --port "$PORT" --path "/dashboard?phase=warmup" \
            --rate 50 --duration 10 --seed $((100 + k)) --out /dev/null > "$d/warmup.json"
        sleep 1
        stats "$d/stats-0.json"; nstat_snap "$d/nstat-0.txt"; cpu_snap "$d/procstat.txt"
        client python3 "$RIG/client/openloop.py" --port "$PORT" --path "/dashboard?phase=measure" \
            --rate "$rate" --duration "$DURATION" --seed "$k" --tag-id --out "$d/client.csv.gz" > "$d/client.json"
        stats "$d/stats-1.json"; nstat_snap "$d/nstat-1.txt"; cpu_snap "$d/procstat.txt"
        curl -sf "http://127.0.0.1:$PORT/dump?what=requests" | gzip > "$d/requests.csv.gz"
        stop_server
        load_snap "$d/loadavg.txt"; cpu_snap "$d/procstat.txt"
        gzip -f "$d/gc.log"
        grep -F 'phase=measure' "$d/access/access.log" | gzip -9 > "$ACC/dashboard-rate$rate-run$k.log.gz"
        # the warm-up lines are dropped (counted here), the measured ones kept under results/access
        grep -c 'phase=warmup' "$d/access/access.log" > "$d/access-warmup-lines.txt" || true
        rm -r "$d/access"
        echo "rate $rate run $k: $(cat "$d/client.json")"
    done
done
[ "${RIG_SUMMARIZE:-1}" = 0 ] || python3 "$RIG/tools/summarize.py" 5 "$OUT"
