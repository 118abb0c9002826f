#!/usr/bin/env python3
"""Writes the example's telemetry: traces.json (OTLP/JSON, the collector file exporter's form,
one ExportTraceServiceRequest a line) and access.log (Tomcat's AccessLogValve, common + %D),
for 300 requests of GET /dashboard at 20 a second. Hand-made with a fixed seed: the service
reads the session from PostgreSQL (log-normal, p50 3 ms, p99 15 ms), calls User (log-normal,
p50 40 ms, p99 150 ms), then Orders (gamma, mean 80 ms) and Recommendations (log-normal,
p50 120 ms, p99 700 ms, 2 % failures) at once."""
import json, math, random, time

rng = random.Random(7)
Z99 = 2.326347874040841
def lognormal(p50, p99):
    return math.exp(math.log(p50) + (math.log(p99) - math.log(p50)) / Z99 * rng.gauss(0, 1))

t0 = 1_764_000_000_000_000_000  # ns
at = 0.0
batches, lines = [], []
spans = []
for i in range(300):
    at += rng.expovariate(20.0)
    start = t0 + int(at * 1e9)
    trace = "%032x" % rng.getrandbits(128)
    root = "%016x" % rng.getrandbits(64)
    t = start + 200_000
    calls = []
    db = lognormal(3, 15) * 1e6
    calls.append(("SELECT session", "postgresql", {"db.system": "postgresql"}, t, t + int(db), False)); t += int(db) + 50_000
    u = lognormal(40, 150) * 1e6
    calls.append(("GET /users/{id}", "user", {"peer.service": "user"}, t, t + int(u), False)); t += int(u) + 50_000
    o = rng.gammavariate(4.0, 20.0) * 1e6
    r = lognormal(120, 700) * 1e6
    calls.append(("GET /orders", "orders", {"peer.service": "orders"}, t, t + int(o), False))
    calls.append(("GET /recommendations", "recommendations", {"peer.service": "recommendations"}, t + 30_000, t + 30_000 + int(r), rng.random() < 0.02))
    end = max(t + int(o), t + 30_000 + int(r)) + 300_000
    def attrs(d):
        return [{"key": k, "value": {"stringValue": v}} for k, v in d.items()]
    spans.append({"traceId": trace, "spanId": root, "name": "GET /dashboard", "kind": 2,
                  "startTimeUnixNano": str(start), "endTimeUnixNano": str(end),
                  "attributes": attrs({"http.request.method": "GET", "http.route": "/dashboard"}), "status": {}})
    for name, peer, a, s, e, err in calls:
        spans.append({"traceId": trace, "spanId": "%016x" % rng.getrandbits(64), "parentSpanId": root,
                      "name": name, "kind": 3, "startTimeUnixNano": str(s), "endTimeUnixNano": str(e),
                      "attributes": attrs(a), "status": {"code": 2} if err else {}})
    when = time.strftime("%d/%b/%Y:%H:%M:%S +0000", time.gmtime(end / 1e9))
    lines.append('10.1.0.%d - - [%s] "GET /dashboard HTTP/1.1" 200 %d %d' % (i % 200 + 1, when, 900 + i % 50, (end - start) // 1000))
    if len(spans) >= 250 or i == 299:
        batches.append({"resourceSpans": [{"resource": {"attributes": attrs({"service.name": "dashboard"})},
                        "scopeSpans": [{"scope": {"name": "io.opentelemetry.tomcat-10.0"}, "spans": spans}]}]})
        spans = []
with open("traces.json", "w") as f:
    for b in batches:
        f.write(json.dumps(b, separators=(",", ":")) + "\n")
with open("access.log", "w") as f:
    f.write("\n".join(lines) + "\n")
