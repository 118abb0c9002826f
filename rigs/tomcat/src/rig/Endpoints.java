package rig;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.LockSupport;

/** The single-purpose endpoints: a fixed latency, a fixed amount of CPU, a fixed allocation. */
final class Endpoints {
    static final AtomicLong SERVED = new AtomicLong();

    static long param(HttpServletRequest req, String name, long d) {
        String v = req.getParameter(name);
        return v == null ? d : Long.parseLong(v);
    }

    /** Parks until the deadline: Thread.sleep on JDK 17 rounds to whole milliseconds. */
    static void sleepMicros(long micros) {
        long deadline = System.nanoTime() + micros * 1000L;
        long left;
        while ((left = deadline - System.nanoTime()) > 0) {
            LockSupport.parkNanos(left);
        }
    }

    static void text(HttpServletResponse resp, String body) throws IOException {
        resp.setContentType("text/plain");
        resp.getWriter().write(body);
    }

    /** /sleep?ms=100: a call of fixed latency that holds the handler thread and no core. */
    static final class Sleep extends HttpServlet {
        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            long t = System.nanoTime();
            long c = Recorder.threadCpu();
            long ms = param(req, "ms", 100);
            sleepMicros(ms * 1000);
            text(resp, "slept " + ms + "\n");
            SERVED.incrementAndGet();
            Recorder.record(t, System.nanoTime(), Recorder.threadCpu() - c, 0, 0, 0);
        }
    }

    /** /spin?n=ITER: ITER xorshift rounds, the same work every request (so a cold JIT shows). */
    static final class Spin extends HttpServlet {
        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            long t = System.nanoTime();
            long c = Recorder.threadCpu();
            long n = param(req, "n", 1_000_000);
            long x = work(n, t | 1);
            long cpu = Recorder.threadCpu() - c;
            resp.setHeader("X-Cpu-Ns", Long.toString(cpu));
            text(resp, Long.toHexString(x) + "\n");
            SERVED.incrementAndGet();
            Recorder.record(t, System.nanoTime(), cpu, 0, 0, 0);
        }

        static long work(long n, long seed) {
            long x = seed;
            for (long i = 0; i < n; i++) {
                x ^= x << 13;
                x ^= x >>> 7;
                x ^= x << 17;
            }
            return x;
        }
    }

    /**
     * /alloc?kib=256&keep=1: kib/4 byte[4096] chunks per request, each written so none is
     * optimised away; keep chunks of them go into a ring of rig.ring slots, where they live for
     * rig.ring / keep requests (the survivor fraction is keep * 4 / kib).
     */
    static final class Alloc extends HttpServlet {
        static final int RING = Rig.intProp("rig.ring", 2048);
        static final AtomicReferenceArray<byte[]> KEPT = new AtomicReferenceArray<>(RING);
        static final AtomicLong SLOT = new AtomicLong();

        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            long t = System.nanoTime();
            long c = Recorder.threadCpu();
            int chunks = (int) (param(req, "kib", 256) / 4);
            int keep = (int) param(req, "keep", 1);
            byte[][] held = new byte[chunks][];
            long sum = 0;
            for (int i = 0; i < chunks; i++) {
                byte[] b = new byte[4096];
                b[i & 4095] = (byte) i;
                b[4095 - (i & 4095)] = (byte) t;
                held[i] = b;
            }
            for (int i = 0; i < chunks; i++) {
                sum += held[i][i & 4095] + held[(i * 7) % chunks][4095];
            }
            for (int k = 0; k < keep && k < chunks; k++) {
                KEPT.set((int) (SLOT.getAndIncrement() % RING), held[k]);
            }
            text(resp, sum + "\n");
            SERVED.incrementAndGet();
            Recorder.record(t, System.nanoTime(), Recorder.threadCpu() - c, 0, 0, 0);
        }
    }

    private Endpoints() {}
}
