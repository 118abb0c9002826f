package rig;

import jakarta.servlet.http.HttpServlet;
import java.io.File;
import java.nio.file.Files;
import java.util.Locale;
import org.apache.catalina.Context;
import org.apache.catalina.Lifecycle;
import org.apache.catalina.core.StandardContext;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.startup.Tomcat;
import org.apache.catalina.valves.AccessLogValve;
import org.apache.coyote.http11.Http11NioProtocol;

/**
 * An embedded Tomcat 10.1 with the measurement endpoints. Every setting is a system property
 * (-Drig.x=...) so the scripts state them on the command line; the effective connector values are
 * printed at start (one line "rig.settings ...") and served at /stats.
 *
 * <pre>
 *   /sleep?ms=100            parks the handler thread (fixed latency, no CPU)
 *   /spin?n=ITER             a fixed amount of CPU work (xorshift rounds); X-Cpu-Ns = thread CPU
 *   /alloc?kib=256&keep=1    short-lived byte[4096] chunks; keep of them retained in a ring
 *   /bulkhead?mode=escape|fallback   a 4-thread hand-off bulkhead around a 100 ms call
 *   /dashboard               user, then orders + recommendations fanned out, on two pools
 *   /stats                   JSON: process CPU, GC beans, threads, Tomcat pool, counters
 *   /dump?what=requests|pool per-request records and the pool-size samples (CSV)
 * </pre>
 */
public final class Rig {
    static int intProp(String k, int d) {
        return Integer.parseInt(System.getProperty(k, Integer.toString(d)));
    }

    static String prop(String k, String d) {
        return System.getProperty(k, d);
    }

    public static void main(String[] args) throws Exception {
        long t0 = System.nanoTime();
        int port = intProp("rig.port", 8080);
        Tomcat tomcat = new Tomcat();
        File base = Files.createTempDirectory("rig-tomcat").toFile();
        tomcat.setBaseDir(base.getAbsolutePath());

        Connector c = new Connector(Http11NioProtocol.class.getName());
        c.setPort(port);
        c.setProperty("address", "127.0.0.1");
        c.setProperty("maxThreads", prop("rig.threads", "200"));
        c.setProperty("minSpareThreads", prop("rig.minSpare", "10"));
        c.setProperty("acceptCount", prop("rig.acceptCount", "100"));
        c.setProperty("maxConnections", prop("rig.maxConnections", "8192"));
        if (System.getProperty("rig.keepAliveTimeout") != null) {
            c.setProperty("keepAliveTimeout", prop("rig.keepAliveTimeout", ""));
        }
        c.setProperty("maxKeepAliveRequests", prop("rig.maxKeepAliveRequests", "100"));
        tomcat.setConnector(c);

        // Tomcat.addContext's FixContextListener scans annotations, and Debian's embed jar has
        // no jakarta.annotation: a plain context marked configured, as that listener does else.
        StandardContext ctx = new StandardContext();
        ctx.setName("");
        ctx.setPath("");
        ctx.setDocBase(base.getAbsolutePath());
        ctx.addLifecycleListener(e -> {
            if (e.getType().equals(Lifecycle.CONFIGURE_START_EVENT)) {
                ctx.setConfigured(true);
            }
        });
        tomcat.getHost().addChild(ctx);
        add(tomcat, ctx, "sleep", new Endpoints.Sleep());
        add(tomcat, ctx, "spin", new Endpoints.Spin());
        add(tomcat, ctx, "alloc", new Endpoints.Alloc());
        add(tomcat, ctx, "bulkhead", new Bulkhead());
        add(tomcat, ctx, "dashboard", new Dashboard());
        add(tomcat, ctx, "stats", new Stats(c));
        add(tomcat, ctx, "dump", new Dump());

        if (Boolean.parseBoolean(prop("rig.cpuValve", "true"))) {
            tomcat.getHost().getPipeline().addValve(new CpuValve());
        }
        String logDir = prop("rig.accessLog", "");
        if (!logDir.isEmpty()) {
            AccessLogValve v = new AccessLogValve();
            v.setDirectory(new File(logDir).getAbsolutePath());
            v.setPrefix("access");
            v.setSuffix(".log");
            v.setFileDateFormat("");
            v.setRotatable(false);
            v.setBuffered(true);
            v.setPattern(prop("rig.accessPattern",
                    "%h %l %u %t \"%r\" %s %b %D %T %{begin:msec}t %I"));
            tomcat.getHost().getPipeline().addValve(v);
        }

        tomcat.start();
        // flushes the buffered access log when the scripts stop the server (SIGTERM)
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                tomcat.stop();
                tomcat.destroy();
            } catch (Exception e) {
                e.printStackTrace();
            }
        }, "rig-shutdown"));
        Recorder.startPoolSampler(c, intProp("rig.samplerMicros", 0));
        long started = System.nanoTime();
        System.out.println(String.format(Locale.ROOT,
                "rig.started jvm_uptime_ms=%d tomcat_start_ms=%.1f",
                java.lang.management.ManagementFactory.getRuntimeMXBean().getUptime(),
                (started - t0) / 1e6));
        System.out.println("rig.settings " + Stats.connectorSettings(c));
        System.out.flush();
        tomcat.getServer().await();
    }

    private static void add(Tomcat t, Context ctx, String name, HttpServlet s) {
        Tomcat.addServlet(ctx, name, s);
        ctx.addServletMappingDecoded("/" + name, name);
    }
}
