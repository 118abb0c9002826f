#!/usr/bin/env bash
# Experiment 3: GET /alloc?kib=256&keep=1 (256 KiB of byte[4096] per request, one 4 KiB chunk of
# it kept in a ring of 2048 slots) at a constant open-loop Poisson rate, under Parallel, G1 and
# ZGC, -Xms512m -Xmx512m, young generation fixed at -Xmn64m (not for ZGC: JDK 17's ZGC has no
# generations). 10 s warm-up, then 30 s measured on the same server.
source "$(dirname "$0")/lib.sh"
build
OUT="$RESULTS/3-alloc"
mkdir -p "$OUT"; machine "$OUT/machine.txt"
RATE="${RIG_ALLOC_RATE:-300}"
PATH_="/alloc?kib=256&keep=1"
PROPS=(-Drig.threads=200 -Drig.minSpare=10 -Drig.acceptCount=100 -Drig.maxConnections=8192 -Drig.ring=2048)
OPEN=(python3 "$RIG/client/openloop.py" --port "$PORT" --path "$PATH_" --rate "$RATE")

for gc in parallel g1 zgc; do
    case $gc in
        parallel) JVM=(-Xms512m -Xmx512m -Xmn64m -XX:+UseParallelGC) ;;
        g1) JVM=(-Xms512m -Xmx512m -Xmn64m -XX:+UseG1GC) ;;
        zgc) JVM=(-Xms512m -Xmx512m -XX:+UseZGC) ;;
    esac
    for k in $(seq "$REPEATS"); do
        d="$OUT/$gc/run$k"; rm -rf "$d"; mkdir -p "$d"
        wait_quiet; load_snap "$d/loadavg.txt"; cpu_snap "$d/procstat.txt"
        start_server "$d" "${JVM[@]}" -- "${PROPS[@]}"
        client "${OPEN[@]}" --duration 10 --seed $((100 + k)) --out /dev/null > "$d/warmup.json"
        stats "$d/stats-0.json"; threadcpu "$d/threadcpu-0.json"; cpu_snap "$d/procstat.txt"
        client "${OPEN[@]}" --duration 30 --seed "$k" --out "$d/client.csv.gz" > "$d/client.json"
        stats "$d/stats-1.json"; threadcpu "$d/threadcpu-1.json"; cpu_snap "$d/procstat.txt"
        stop_server
        load_snap "$d/loadavg.txt"; cpu_snap "$d/procstat.txt"
        gzip -f "$d/gc.log"
        echo "$gc run $k: $(cat "$d/client.json")"
    done
done
[ "${RIG_SUMMARIZE:-1}" = 0 ] || python3 "$RIG/tools/summarize.py" 3 "$OUT"
