package rig;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.PrintWriter;
import java.lang.management.ThreadInfo;
import java.util.HashMap;
import java.util.Map;

/** /dump?what=requests|pool: the recorder's arrays as CSV (nanoTime = CLOCK_MONOTONIC). */
final class Dump extends HttpServlet {
    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        resp.setContentType("text/csv");
        PrintWriter w = resp.getWriter();
        if ("pool".equals(req.getParameter("what"))) {
            w.println("t_ns,pool,active,queue");
            int n = Recorder.sampled;
            for (int i = 0; i < n; i++) {
                w.println(Recorder.S_T[i] + "," + Recorder.S_POOL[i] + "," + Recorder.S_ACTIVE[i]
                        + "," + Recorder.S_QUEUE[i]);
            }
            return;
        }
        Map<Long, String> names = new HashMap<>();
        for (ThreadInfo t : Recorder.THREADS.dumpAllThreads(false, false)) {
            names.put(t.getThreadId(), t.getThreadName());
        }
        int n = Math.min(Recorder.NEXT.get(), Recorder.CAP);
        w.println("seq,thread,start_ns,end_ns,cpu_ns,proc_cpu_ns,a_us,b_us,c_us,id");
        for (int i = 0; i < n; i++) {
            w.println(i + "," + names.getOrDefault(Recorder.TID[i], "tid" + Recorder.TID[i]) + ","
                    + Recorder.START[i] + "," + Recorder.END[i] + "," + Recorder.CPU[i] + ","
                    + Recorder.PROC_CPU[i] + "," + Recorder.A[i] + "," + Recorder.B[i] + ","
                    + Recorder.C[i] + "," + Recorder.ID[i]);
        }
    }
}
