package rig;

import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Locale;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * /dashboard: the user call first (on pool "user"), then orders and recommendations at once (on
 * pool "downstream"); each call parks for a latency drawn from its distribution. Pools: core =
 * max, ArrayBlockingQueue(rig.dash.queue), AbortPolicy (a rejection escapes as a 500). The drawn
 * latencies (microseconds) are recorded per request (fields a, b, c of /dump).
 */
final class Dashboard extends HttpServlet {
    static final Dist USER = Dist.parse(Rig.prop("rig.dash.user", "lognormal:20:80"));
    static final Dist ORDERS = Dist.parse(Rig.prop("rig.dash.orders", "uniform:30:70"));
    static final Dist RECS = Dist.parse(Rig.prop("rig.dash.recs", "lognormal:50:250"));
    static final int QUEUE = Rig.intProp("rig.dash.queue", 100);
    static final ThreadPoolExecutor USER_POOL = pool("user", Rig.intProp("rig.dash.userPool", 20));
    static final ThreadPoolExecutor DOWN_POOL =
            pool("downstream", Rig.intProp("rig.dash.downPool", 32));

    static String settings() {
        return String.format(Locale.ROOT,
                "dash.user=%s dash.orders=%s dash.recs=%s dash.userPool=%d dash.downPool=%d "
                        + "dash.queue=%d",
                USER, ORDERS, RECS, USER_POOL.getMaximumPoolSize(),
                DOWN_POOL.getMaximumPoolSize(), QUEUE);
    }

    static ThreadPoolExecutor pool(String name, int size) {
        return new ThreadPoolExecutor(size, size, 60, TimeUnit.SECONDS,
                new ArrayBlockingQueue<>(QUEUE), named(name), new ThreadPoolExecutor.AbortPolicy());
    }

    static ThreadFactory named(String name) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, name + "-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp)
            throws IOException, ServletException {
        long t = System.nanoTime();
        long c = Recorder.threadCpu();
        ThreadLocalRandom r = ThreadLocalRandom.current();
        long u = USER.drawMicros(r);
        long o = ORDERS.drawMicros(r);
        long k = RECS.drawMicros(r);
        try {
            USER_POOL.submit(() -> Endpoints.sleepMicros(u)).get();
            Future<?> fo = DOWN_POOL.submit(() -> Endpoints.sleepMicros(o));
            Future<?> fk = DOWN_POOL.submit(() -> Endpoints.sleepMicros(k));
            fo.get();
            fk.get();
        } catch (InterruptedException | ExecutionException e) {
            throw new ServletException(e);
        }
        Endpoints.text(resp, "dashboard\n");
        Endpoints.SERVED.incrementAndGet();
        Recorder.record(t, System.nanoTime(), Recorder.threadCpu() - c, u, o, k,
                Endpoints.param(req, "id", -1));
    }

    /** A latency distribution in milliseconds: fixed:M, uniform:MIN:MAX, lognormal:P50:P99. */
    record Dist(String kind, double a, double b) {
        static Dist parse(String s) {
            String[] p = s.split(":");
            return switch (p[0]) {
                case "fixed" -> new Dist("fixed", Double.parseDouble(p[1]), 0);
                case "uniform", "lognormal" ->
                        new Dist(p[0], Double.parseDouble(p[1]), Double.parseDouble(p[2]));
                default -> throw new IllegalArgumentException("unknown distribution " + s);
            };
        }

        long drawMicros(ThreadLocalRandom r) {
            double ms = switch (kind) {
                case "fixed" -> a;
                case "uniform" -> a + (b - a) * r.nextDouble();
                // p99 = p50 * exp(2.326348 sigma)
                default -> a * Math.exp(Math.log(b / a) / 2.3263478740408408 * r.nextGaussian());
            };
            return Math.round(ms * 1000);
        }

        @Override
        public String toString() {
            return kind.equals("fixed") ? kind + ":" + a : kind + ":" + a + ":" + b;
        }
    }
}
