# Shared by the experiment scripts: dependencies, build, a server started and always stopped,
# the machine's state before and after each run. Source it; do not run it.
set -euo pipefail

RIG="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
RESULTS="${RIG_RESULTS:-$RIG/results}"   # RIG_RESULTS: elsewhere, e.g. for a trial run
BUILD="$RIG/build"
PORT="${RIG_PORT:-18080}"
NICE="${RIG_NICE:--10}"         # server and clients above the nice-19 compilers
REPEATS="${RIG_REPEATS:-3}"
CP="$BUILD:/usr/share/java/tomcat10-embed-core.jar"
JAVA="${RIG_JAVA:-/usr/lib/jvm/java-17-openjdk-amd64/bin/java}"
JAVAC="${RIG_JAVAC:-/usr/lib/jvm/java-17-openjdk-amd64/bin/javac}"
SERVER_PID=""

die() { echo "rig: $*" >&2; exit 1; }

# Linux's autogroups (kernel.sched_autogroup_enabled=1) share the cores equally between sessions
# before nice counts, so compilers started from another login at nice 19 still took half of
# them from a nice -5 server. Each experiment therefore runs in a session of its own (setsid: a new
# autogroup) whose autogroup nice is $NICE, and its server and clients at nice $NICE within it.
# A signal to this script (Ctrl-C, kill) goes to the whole session, whose trap stops the server.
if [ -z "${RIG_IN_SESSION:-}" ]; then
    export RIG_IN_SESSION=1
    setsid bash "$0" "$@" &
    session=$!
    trap 'kill -TERM -- "-$session" 2>/dev/null' INT TERM
    rc=0
    while :; do
        if wait "$session"; then rc=0; break; else rc=$?; fi
        kill -0 "$session" 2>/dev/null || break
    done
    exit "$rc"
fi
if [ "$(cat /proc/sys/kernel/sched_autogroup_enabled 2>/dev/null || echo 0)" = 1 ]; then
    echo "$NICE" > /proc/self/autogroup || die "cannot set the autogroup's nice to $NICE"
fi

need() {
    for c in "$@"; do
        command -v "$c" >/dev/null 2>&1 || die "missing '$c' (apt-get install -y openjdk-17-jdk-headless libtomcat10-embed-java wrk iproute2 curl procps util-linux python3)"
    done
}

check_deps() {
    need "$JAVA" "$JAVAC" wrk nstat ss curl python3 gzip nice uptime sysctl setsid
    [ -f /usr/share/java/tomcat10-embed-core.jar ] \
        || die "missing /usr/share/java/tomcat10-embed-core.jar (apt-get install -y libtomcat10-embed-java)"
    nice -n "$NICE" true 2>/dev/null || die "cannot run at nice $NICE (run as root or set RIG_NICE=0)"
}

build() {
    check_deps
    mkdir -p "$BUILD"
    "$JAVAC" -nowarn -d "$BUILD" -cp /usr/share/java/tomcat10-embed-core.jar "$RIG"/src/rig/*.java 2>&1 \
        | { grep -v '^Note:' || true; }
    [ -f "$BUILD/rig/Rig.class" ] || die "build failed"
}

stop_server() {
    if [ -n "$SERVER_PID" ] && kill -0 "$SERVER_PID" 2>/dev/null; then
        kill "$SERVER_PID"
        for _ in $(seq 100); do kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$SERVER_PID" 2>/dev/null || true
        wait "$SERVER_PID" 2>/dev/null || true
    fi
    SERVER_PID=""
}
trap stop_server EXIT
trap 'exit 143' INT TERM

port_free() { ! ss -Hltn "sport = :$PORT" | grep -q .; }

# start_server DIR JVM_FLAGS... -- RIG_PROPS...: starts the server, its GC log in DIR/gc.log,
# stdout/stderr in DIR/server.out and DIR/server.err; returns once the port listens (no request
# is sent, so the server stays cold) and Tomcat has started.
start_server() {
    local dir="$1"; shift
    local flags=() props=()
    while [ $# -gt 0 ] && [ "$1" != "--" ]; do flags+=("$1"); shift; done
    [ $# -gt 0 ] && shift
    props=("$@")
    port_free || die "port $PORT is taken"
    mkdir -p "$dir"
    echo "$JAVA ${flags[*]} -Xlog:gc*:file=$dir/gc.log:uptime,level,tags -cp $CP -Drig.port=$PORT ${props[*]} rig.Rig" > "$dir/command.txt"
    nice -n "$NICE" "$JAVA" "${flags[@]}" "-Xlog:gc*:file=$dir/gc.log:uptime,level,tags" \
        -cp "$CP" "-Drig.port=$PORT" "${props[@]}" rig.Rig >"$dir/server.out" 2>"$dir/server.err" &
    SERVER_PID=$!
    local t0; t0=$(date +%s%N)
    while port_free; do
        kill -0 "$SERVER_PID" 2>/dev/null || die "server died: $(tail -5 "$dir/server.err")"
        sleep 0.01
    done
    echo "listening_after_ms $(( ($(date +%s%N) - t0) / 1000000 ))" >> "$dir/command.txt"
    # Tomcat binds its port at init, before the context starts: wait for main's start line
    while ! grep -q 'rig.started jvm_uptime_ms' "$dir/server.out"; do
        kill -0 "$SERVER_PID" 2>/dev/null || die "server died: $(tail -5 "$dir/server.err")"
        sleep 0.01
    done
    echo "started_after_ms $(( ($(date +%s%N) - t0) / 1000000 ))" >> "$dir/command.txt"
}

stats() { curl -sf "http://127.0.0.1:$PORT/stats" > "$1" || die "no /stats"; }
threadcpu() { python3 "$RIG/tools/threadcpu.py" "$SERVER_PID" > "$1"; }
nstat_snap() { nstat -asz | grep -E '^Tcp' > "$1"; }  # the TCP counters only
load_snap() { cat /proc/loadavg >> "$1"; }
# /proc/stat's cpu line (user nice system idle iowait irq softirq steal, in ticks): before and
# after a run it gives the share of the cores that the nice-19 compilers of others still took.
cpu_snap() { head -1 /proc/stat >> "$1"; }

# Refuses to start a run while the machine is busy beyond RIG_MAX_LOAD (the 1-minute load
# average; default 4 on these 2 cores), after waiting up to RIG_WAIT_S for it to fall.
wait_quiet() {
    local max="${RIG_MAX_LOAD:-4}" waited=0
    while awk -v m="$max" '{exit !($1 > m)}' /proc/loadavg; do
        [ "$waited" -ge "${RIG_WAIT_S:-20}" ] && { echo "rig: load $(cut -d' ' -f1 /proc/loadavg) > $max, running anyway" >&2; return; }
        sleep 5; waited=$((waited + 5))
    done
}

client() { nice -n "$NICE" "$@"; }

machine() {
    {
        echo "date: $(date -Is)"
        echo "kernel: $(uname -sr)"
        echo "cpus: $(nproc) ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'))"
        echo "memory: $(free -g | awk '/Mem:/{print $2}') GiB"
        echo "java: $("$JAVA" -version 2>&1 | sed -n 2p)"
        echo "tomcat: $(dpkg-query -W -f='${Version}' libtomcat10-embed-java 2>/dev/null)"
        echo "wrk: $(dpkg-query -W -f='${Version}' wrk 2>/dev/null)"
        echo "python: $(python3 --version 2>&1)"
        for k in net.core.somaxconn net.ipv4.tcp_max_syn_backlog net.ipv4.tcp_syncookies \
                 net.ipv4.tcp_syn_retries net.ipv4.tcp_synack_retries net.ipv4.tcp_abort_on_overflow \
                 net.ipv4.ip_local_port_range net.ipv4.tcp_tw_reuse; do
            echo "$k: $(sysctl -n $k 2>/dev/null | tr '\t' ' ')"
        done
        echo "ulimit -n: $(ulimit -n) (clients raise their soft limit to the hard one)"
        echo "kernel.sched_autogroup_enabled: $(cat /proc/sys/kernel/sched_autogroup_enabled 2>/dev/null)"
        echo "rig priority: $(cat /proc/self/autogroup 2>/dev/null), processes at nice $NICE"
    } > "$1"
}
