"""From Submit to feedback fetchable, through the grading service (coursekit.service): idle and a burst.

Run: .venv/bin/python benchmarks/bench_submit.py [--idle 20] [--burst 100] [--within 60] [--workers 1]
A throw-away course with its own exchange (tests/support/service_tools.py), the service started as
a plain process (``python -m coursekit.service``, as the hub runs it), every kernel in the sandbox
unless ATTN_SANDBOX=off. Students submit with nbgrader's own ExchangeSubmit; a submission's
feedback is "fetchable" when the page Fetch Feedback looks for (the hash of its secret) exists in
the exchange, polled every 50 ms.

* idle: --idle submissions one after another (the mistake table's rows in turn), each once the
  previous one's feedback is out: the latency a student sees on a quiet service;
* burst: --burst different students submitting evenly spread over --within seconds: how long the
  last of them waits, and whether every one is released (nothing lost).

Prints p50 / p95 / max of each, the machine's load, and the service's settings. Its steps at the smoke's sizes are
taken on tests/integration/test_service.py's running service (its smoke in make test).
"""
import os
import pathlib
import statistics
import sys
import tempfile
import threading
import time

import nbformat

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tests"))  # the shared test support
import conftest  # noqa: E402,F401  -- Jupyter/IPython/matplotlib state under .state/, as in the tests

import benchcli  # noqa: E402

from support import service_tools as st  # noqa: E402
from support.course_tools import released  # noqa: E402
from support.mistakes import MISTAKES, mistake_notebook  # noqa: E402
from support.stats import percentile  # noqa: E402


def summary(name, latencies, expected):
    if not latencies:
        return f"{name}: nothing released of {expected}"
    return (f"{name}: {len(latencies)}/{expected} released · p50 {percentile(latencies, 50):.2f} s · "
            f"p95 {percentile(latencies, 95):.2f} s · max {max(latencies):.2f} s · "
            f"mean {statistics.mean(latencies):.2f} s")


def submissions(sc) -> list:
    """The notebooks the students submit: the mistake table's rows in turn, typed into ``sc``'s release."""
    return [nbformat.writes(mistake_notebook(released(sc.course), m)) for m in MISTAKES]


def idle_run(sc, rows, count, timeout=120):
    latencies = []
    for k in range(count):
        started = time.time()
        sent = st.submit(sc, f"idle{k % 5}", rows[k % len(rows)])
        st.wait_for(lambda: st.fetchable(sc, sent), timeout, f"idle submission {k}", poll=0.05)
        latencies.append(time.time() - started)
        print(f"  idle {k + 1:>3}/{count}: {latencies[-1]:.2f} s", flush=True)
        time.sleep(0.5)
    return latencies


def burst_run(sc, rows, count, within, timeout=900):
    sent, lock = {}, threading.Lock()
    begin = time.time()

    def students():
        for k in range(count):
            time.sleep(max(0.0, begin + k * within / count - time.time()))
            started = time.time()
            submitted = st.submit(sc, f"burst{k:03d}", rows[k % len(rows)])
            with lock:
                sent[k] = (started, submitted)

    thread = threading.Thread(target=students, daemon=True)
    thread.start()
    latencies, done, deadline = {}, set(), begin + within + timeout
    while len(done) < count and time.time() < deadline:
        with lock:
            waiting = [(k, v) for k, v in sent.items() if k not in done]
        for k, (started, submitted) in waiting:
            if st.fetchable(sc, submitted):
                latencies[k] = time.time() - started
                done.add(k)
        time.sleep(0.05)
    thread.join()
    print(f"  burst: {count} submitted in {max(s for s, _ in sent.values()) - begin:.1f} s", flush=True)
    return list(latencies.values())


def main():
    parser = benchcli.parser(__doc__, {"idle": 1, "burst": 1, "within": 1.0, "workers": 1})
    parser.add_argument("--idle", type=int, default=20, help="submissions one after another, each once the last is out")
    parser.add_argument("--burst", type=int, default=100, help="students submitting evenly spread over --within")
    parser.add_argument("--within", type=float, default=60.0, help="seconds the burst is spread over")
    parser.add_argument("--workers", type=int, default=1, help="the service's workers")
    args = benchcli.parse(parser)
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="bench-submit-"))
    sc = st.service_course(tmp)
    sc.configure(workers=args.workers)
    rows = submissions(sc)
    sandbox = os.environ.get("ATTN_SANDBOX", "on")
    print(f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}; sandbox {sandbox}; {args.workers} worker(s); "
          f"course in {tmp}", flush=True)
    lines = []
    with st.running_service(sc):
        if args.idle:
            lines.append(summary("idle", idle_run(sc, rows, args.idle), args.idle))
        if args.burst:
            lines.append(summary(f"burst of {args.burst} within {args.within:g} s",
                                 burst_run(sc, rows, args.burst, args.within), args.burst))
    print(f"\nload after: {os.getloadavg()[0]:.1f}")
    print("\n".join(lines))
    print(f"service log: {sc.course / st.SERVICE_LOG}")


if __name__ == "__main__":
    main()
