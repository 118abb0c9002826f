#!/usr/bin/env bash
# Experiment 2: 2 ms of CPU per request (a fixed number of xorshift rounds, calibrated warm) on
# the 2 cores. (a) closed loop, wrk -t2 at 100 and 400 connections, 10 s warm-up then 30 s
# measured on the same server; (b) warm-up series: one sequential client on a fresh server,
# 3000 requests, the servlet's thread CPU of each; (c) a fresh server under wrk -c100 at once
# (6 runs: one in three stalled); (d) 400 connections again with acceptCount 1000, so that wrk's
# 400 connects at its start overflow no listen queue (the tail of (a) at 400 is those connects).
# RIG_EXP2_PARTS picks parts (default "closed seq cold backlog"; "coldjit" is (c) with the JIT's
# log).
source "$(dirname "$0")/lib.sh"
build
OUT="$RESULTS/2-cpu"
mkdir -p "$OUT"; machine "$OUT/machine.txt"
SPIN="/spin?n=${RIG_SPIN_N:-1085000}"
JVM=(-Xms512m -Xmx512m -XX:+UseG1GC)
PROPS=(-Drig.threads=200 -Drig.minSpare=10 -Drig.acceptCount=100 -Drig.maxConnections=8192)
URL="http://127.0.0.1:$PORT$SPIN"

begin() { d="$1"; rm -rf "$d"; mkdir -p "$d"; wait_quiet; load_snap "$d/loadavg.txt"; cpu_snap "$d/procstat.txt"; }
end() { stop_server; load_snap "$d/loadavg.txt"; cpu_snap "$d/procstat.txt"; gzip -f "$d/gc.log"; }

PARTS="${RIG_EXP2_PARTS:-closed seq cold backlog}"
has() { [[ " $PARTS " == *" $1 "* ]]; }

closed() {  # closed NAME CONNECTIONS EXTRA_PROPS...
    local name="$1" c="$2"; shift 2
    for k in $(seq "$REPEATS"); do
        begin "$OUT/$name/run$k"
        start_server "$d" "${JVM[@]}" -- "${PROPS[@]}" "$@"
        client wrk -t2 -c"$c" -d10s --timeout 10s "$URL" > "$d/wrk-warmup.txt"
        stats "$d/stats-0.json"; threadcpu "$d/threadcpu-0.json"; nstat_snap "$d/nstat-0.txt"; cpu_snap "$d/procstat.txt"
        client wrk -t2 -c"$c" -d30s --timeout 10s --latency "$URL" > "$d/wrk.txt"
        stats "$d/stats-1.json"; threadcpu "$d/threadcpu-1.json"; nstat_snap "$d/nstat-1.txt"; cpu_snap "$d/procstat.txt"
        end
        echo "$name run $k: $(grep -E 'Requests/sec|^ +99%' "$d/wrk.txt" | tr -s ' ' | tr '\n' ' ')"
    done
}

if has closed; then closed c100 100; closed c400 400; fi
if has backlog; then closed c400-backlog1000 400 -Drig.acceptCount=1000; fi

if has seq; then for k in $(seq "$REPEATS"); do
    begin "$OUT/cold-seq/run$k"
    start_server "$d" "${JVM[@]}" -- "${PROPS[@]}" -Drig.record=4000
    client python3 "$RIG/client/sequential.py" --port "$PORT" --path "$SPIN" --requests 3000 --out "$d/seq.csv.gz"
    curl -sf "http://127.0.0.1:$PORT/dump?what=requests" | gzip > "$d/requests.csv.gz"
    stats "$d/stats-1.json"; threadcpu "$d/threadcpu-1.json"
    end
    echo "cold-seq run $k done"
done; fi

if has cold; then for k in $(seq "${RIG_COLD_REPEATS:-6}"); do
    begin "$OUT/cold-c100/run$k"
    start_server "$d" "${JVM[@]}" -- "${PROPS[@]}" -Drig.record=40000
    client wrk -t2 -c100 -d20s --timeout 10s --latency "$URL" > "$d/wrk.txt"
    curl -sf "http://127.0.0.1:$PORT/dump?what=requests" | gzip > "$d/requests.csv.gz"
    stats "$d/stats-1.json"; threadcpu "$d/threadcpu-1.json"
    end
    echo "cold-c100 run $k: $(grep -E 'Requests/sec|^ +99%' "$d/wrk.txt" | tr -s ' ' | tr '\n' ' ')"
done; fi
# (e) not in the default parts: the cold start of (c) with the JIT's log (-XX:+PrintCompilation,
# in server.out.gz), to see what the compilers did when a start stalls
if has coldjit; then for k in $(seq "${RIG_COLD_REPEATS:-6}"); do
    begin "$OUT/cold-c100-jitlog/run$k"
    start_server "$d" "${JVM[@]}" -XX:+PrintCompilation -- "${PROPS[@]}" -Drig.record=40000
    client wrk -t2 -c100 -d20s --timeout 10s --latency "$URL" > "$d/wrk.txt"
    curl -sf "http://127.0.0.1:$PORT/dump?what=requests" | gzip > "$d/requests.csv.gz"
    stats "$d/stats-1.json"; threadcpu "$d/threadcpu-1.json"
    end
    gzip -f "$d/server.out"
    echo "cold-c100-jitlog run $k: $(grep -E 'Requests/sec|^ +99%' "$d/wrk.txt" | tr -s ' ' | tr '\n' ' ')"
done; fi
[ "${RIG_SUMMARIZE:-1}" = 0 ] || python3 "$RIG/tools/summarize.py" 2 "$OUT"
