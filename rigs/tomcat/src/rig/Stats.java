package rig;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.Locale;
import java.util.concurrent.Executor;
import org.apache.catalina.connector.Connector;

/** /stats: one JSON object of the process's counters, read before and after a measured run. */
final class Stats extends HttpServlet {
    private final Connector connector;

    Stats(Connector c) {
        this.connector = c;
    }

    static String connectorSettings(Connector c) {
        StringBuilder s = new StringBuilder();
        for (String k : new String[] {"maxThreads", "minSpareThreads", "acceptCount",
                "maxConnections", "keepAliveTimeout", "maxKeepAliveRequests", "connectionTimeout",
                "processorCache", "acceptorThreadCount", "pollerThreadCount"}) {
            s.append(k).append('=').append(c.getProperty(k)).append(' ');
        }
        s.append("cpus=").append(Runtime.getRuntime().availableProcessors()).append(' ');
        s.append(Dashboard.settings()).append(' ');
        s.append("bulkhead=").append(Bulkhead.SIZE).append(" bulkhead.ms=").append(Bulkhead.CALL_MS);
        return s.toString();
    }

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        StringBuilder j = new StringBuilder("{");
        var rt = ManagementFactory.getRuntimeMXBean();
        var th = ManagementFactory.getThreadMXBean();
        field(j, "uptime_ms", rt.getUptime());
        field(j, "nano_time", System.nanoTime());
        field(j, "process_cpu_ns", Recorder.OS.getProcessCpuTime());
        field(j, "threads_live", th.getThreadCount());
        field(j, "threads_peak", th.getPeakThreadCount());
        field(j, "threads_started", th.getTotalStartedThreadCount());
        field(j, "jit_ms", ManagementFactory.getCompilationMXBean().getTotalCompilationTime());
        field(j, "classes_loaded", ManagementFactory.getClassLoadingMXBean().getTotalLoadedClassCount());
        field(j, "served", Endpoints.SERVED.get());
        field(j, "bulkhead_good", Bulkhead.GOOD.get());
        field(j, "bulkhead_escaped", Bulkhead.ESCAPED.get());
        field(j, "bulkhead_fallback", Bulkhead.FALLBACK.get());
        CpuValve.appendJson(j);
        appendThreadCpu(j);
        Executor e = connector.getProtocolHandler().getExecutor();
        if (e instanceof org.apache.tomcat.util.threads.ThreadPoolExecutor p) {
            field(j, "tomcat_pool", p.getPoolSize());
            field(j, "tomcat_active", p.getActiveCount());
            field(j, "tomcat_largest", p.getLargestPoolSize());
            field(j, "tomcat_completed", p.getCompletedTaskCount());
            field(j, "tomcat_queue", p.getQueue().size());
        }
        j.append("\"gc\":[");
        boolean first = true;
        for (GarbageCollectorMXBean g : ManagementFactory.getGarbageCollectorMXBeans()) {
            j.append(first ? "" : ",").append(String.format(Locale.ROOT,
                    "{\"name\":\"%s\",\"count\":%d,\"time_ms\":%d}", g.getName(),
                    g.getCollectionCount(), g.getCollectionTime()));
            first = false;
        }
        j.append("],\"settings\":\"").append(connectorSettings(connector)).append("\"}\n");
        resp.setContentType("application/json");
        resp.getWriter().write(j.toString());
    }

    /** CPU of the live Java threads by role (a thread that has ended is no longer counted). */
    static void appendThreadCpu(StringBuilder j) {
        var th = ManagementFactory.getThreadMXBean();
        java.util.TreeMap<String, Long> cpu = new java.util.TreeMap<>();
        for (var t : th.dumpAllThreads(false, false)) {
            String n = t.getThreadName();
            String role = n.contains("-exec-") ? "tomcat_exec"
                    : n.contains("-Acceptor") ? "tomcat_acceptor"
                    : n.contains("-Poller") ? "tomcat_poller"
                    : n.replaceAll("-[0-9]+$", "").replaceAll("[^A-Za-z0-9_-]", "_");
            long c = th.getThreadCpuTime(t.getThreadId());
            if (c > 0) {
                cpu.merge("jcpu_" + role, c, Long::sum);
            }
        }
        cpu.forEach((k, v) -> field(j, k, v));
    }

    private static void field(StringBuilder j, String k, long v) {
        j.append('"').append(k).append("\":").append(v).append(',');
    }
}
