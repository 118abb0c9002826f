#!/usr/bin/env python3
"""CPU of every thread of a process, from /proc/PID/task/*/schedstat (nanoseconds, exact),
summed by the thread's comm (the kernel's 15-character thread name: "GC Thread#0", "G1 Conc#0",
"C2 CompilerThre", "VM Thread", "http-nio-127.0." ...). Prints JSON {"comm": ns, ...}.
Threads that have ended are missing: take it before and after a run and subtract."""
import json
import os
import re
import sys

pid = sys.argv[1]
out = {}
for tid in os.listdir(f"/proc/{pid}/task"):
    try:
        with open(f"/proc/{pid}/task/{tid}/comm") as f:
            comm = f.read().strip()
        with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
            ns = int(f.read().split()[0])
    except OSError:
        continue
    key = re.sub(r"#?\d+$", "", comm)
    out[key] = out.get(key, 0) + ns
print(json.dumps(out, sort_keys=True))
