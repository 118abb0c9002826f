package rig;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.apache.catalina.connector.Connector;

/**
 * Per-request records kept in preallocated arrays (no allocation per request, so recording does
 * not feed the GC under test) and a sampler of Tomcat's executor. Times are System.nanoTime(),
 * which on Linux is CLOCK_MONOTONIC: the Python clients' time.monotonic_ns() reads the same clock.
 * Recording is off unless -Drig.record=N (capacity in requests).
 */
final class Recorder {
    static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    static final com.sun.management.OperatingSystemMXBean OS =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    static final int CAP = Rig.intProp("rig.record", 0);
    static final AtomicInteger NEXT = new AtomicInteger();
    static final long[] START = new long[CAP];
    static final long[] END = new long[CAP];
    static final long[] CPU = new long[CAP];
    static final long[] PROC_CPU = new long[CAP];
    static final long[] TID = new long[CAP];
    static final long[] A = new long[CAP];
    static final long[] B = new long[CAP];
    static final long[] C = new long[CAP];
    static final long[] ID = new long[CAP];

    /** Saves one request (nothing when recording is off or full). */
    static void record(long start, long end, long cpu, long a, long b, long c) {
        record(start, end, cpu, a, b, c, -1);
    }

    /** The same, with the client's request id (the id query parameter). */
    static void record(long start, long end, long cpu, long a, long b, long c, long id) {
        if (CAP == 0) {
            return;
        }
        int i = NEXT.getAndIncrement();
        if (i >= CAP) {
            return;
        }
        START[i] = start;
        END[i] = end;
        CPU[i] = cpu;
        PROC_CPU[i] = OS.getProcessCpuTime();
        TID[i] = Thread.currentThread().getId();
        A[i] = a;
        B[i] = b;
        C[i] = c;
        ID[i] = id;
    }

    static long threadCpu() {
        return THREADS.getCurrentThreadCpuTime();
    }

    // Pool samples: time, poolSize, activeCount, queued; written when one of them changes.
    static final int SCAP = 400_000;
    static final long[] S_T = new long[SCAP];
    static final int[] S_POOL = new int[SCAP];
    static final int[] S_ACTIVE = new int[SCAP];
    static final int[] S_QUEUE = new int[SCAP];
    static volatile int sampled;

    static void startPoolSampler(Connector c, int micros) {
        if (micros <= 0) {
            return;
        }
        Thread t = new Thread(() -> {
            Executor e = c.getProtocolHandler().getExecutor();
            if (!(e instanceof org.apache.tomcat.util.threads.ThreadPoolExecutor)) {
                System.out.println("rig.sampler executor is " + e + ", not sampled");
                return;
            }
            var pool = (org.apache.tomcat.util.threads.ThreadPoolExecutor) e;
            int lp = -1;
            int la = -1;
            int lq = -1;
            int n = 0;
            while (n < SCAP) {
                int p = pool.getPoolSize();
                int a = pool.getActiveCount();
                int q = pool.getQueue().size();
                if (p != lp || a != la || q != lq) {
                    S_T[n] = System.nanoTime();
                    S_POOL[n] = p;
                    S_ACTIVE[n] = a;
                    S_QUEUE[n] = q;
                    n++;
                    sampled = n;
                    lp = p;
                    la = a;
                    lq = q;
                }
                LockSupport.parkNanos(micros * 1000L);
            }
        }, "rig-pool-sampler");
        t.setDaemon(true);
        t.start();
    }

    private Recorder() {}
}
