package rig;

import jakarta.servlet.ServletException;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicLongArray;
import org.apache.catalina.connector.Request;
import org.apache.catalina.connector.Response;
import org.apache.catalina.valves.ValveBase;

/**
 * The handler thread's CPU for everything from the Host's pipeline inward (the servlet, a thrown
 * exception's logging in StandardWrapperValve, ErrorReportValve's page), summed by status class.
 * Not counted: reading and parsing the request, writing the rest of the response, the Poller,
 * the Acceptor, GC and JIT threads. Also the bytes the handler thread allocated meanwhile
 * (HotSpot's per-thread allocation counter).
 */
final class CpuValve extends ValveBase {
    // index: status / 100 (2 = 2xx, 5 = 5xx); count and CPU nanoseconds
    static final AtomicLongArray COUNT = new AtomicLongArray(6);
    static final AtomicLongArray CPU = new AtomicLongArray(6);
    static final AtomicLongArray ALLOC = new AtomicLongArray(6);
    static final com.sun.management.ThreadMXBean MX =
            (com.sun.management.ThreadMXBean) Recorder.THREADS;

    CpuValve() {
        super(true);
    }

    @Override
    public void invoke(Request request, Response response) throws IOException, ServletException {
        long c = Recorder.threadCpu();
        long b = MX.getCurrentThreadAllocatedBytes();
        try {
            getNext().invoke(request, response);
        } finally {
            int k = Math.min(5, Math.max(0, response.getStatus() / 100));
            COUNT.incrementAndGet(k);
            CPU.addAndGet(k, Recorder.threadCpu() - c);
            ALLOC.addAndGet(k, MX.getCurrentThreadAllocatedBytes() - b);
        }
    }

    static void appendJson(StringBuilder j) {
        for (int k = 2; k <= 5; k++) {
            j.append("\"valve_").append(k).append("xx_count\":").append(COUNT.get(k)).append(',');
            j.append("\"valve_").append(k).append("xx_cpu_ns\":").append(CPU.get(k)).append(',');
            j.append("\"valve_").append(k).append("xx_alloc_bytes\":").append(ALLOC.get(k))
                    .append(',');
        }
    }
}
