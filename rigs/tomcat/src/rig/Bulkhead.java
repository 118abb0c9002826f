package rig;

import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * /bulkhead?mode=escape|fallback: one call of rig.bulkhead.ms (100) on a hand-off pool of
 * rig.bulkhead threads (core = max, SynchronousQueue, AbortPolicy). escape lets the
 * RejectedExecutionException reach Tomcat (StandardWrapperValve logs it with its stack trace,
 * ErrorReportValve renders the 500 page); fallback catches it and answers 200 "fallback".
 */
final class Bulkhead extends HttpServlet {
    static final int SIZE = Rig.intProp("rig.bulkhead", 4);
    static final long CALL_MS = Rig.intProp("rig.bulkhead.ms", 100);
    static final AtomicLong GOOD = new AtomicLong();
    static final AtomicLong ESCAPED = new AtomicLong();
    static final AtomicLong FALLBACK = new AtomicLong();
    static final ThreadPoolExecutor POOL = new ThreadPoolExecutor(SIZE, SIZE, 60, TimeUnit.SECONDS,
            new SynchronousQueue<>(), Dashboard.named("bulkhead"),
            new ThreadPoolExecutor.AbortPolicy());

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp)
            throws IOException, ServletException {
        boolean escape = !"fallback".equals(req.getParameter("mode"));
        Future<?> f;
        try {
            f = POOL.submit(() -> Endpoints.sleepMicros(CALL_MS * 1000));
        } catch (RejectedExecutionException e) {
            if (escape) {
                ESCAPED.incrementAndGet();
                throw e;
            }
            FALLBACK.incrementAndGet();
            Endpoints.text(resp, "fallback\n");
            return;
        }
        try {
            f.get();
        } catch (InterruptedException | ExecutionException e) {
            throw new ServletException(e);
        }
        GOOD.incrementAndGet();
        Endpoints.text(resp, "dashboard\n");
    }
}
