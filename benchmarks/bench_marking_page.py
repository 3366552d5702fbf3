"""The marking page in Chromium: page open and move → paint, for 300 students × 8 written questions, one run.

Run: .venv/bin/python benchmarks/bench_marking_page.py [--students 300] [--padding 500000] [--moves 60]

Builds the synthetic class of tests/support/written_answers.py in a temporary folder (each
autograded notebook padded to about ``--padding`` bytes, as heavy as a real one with its
figures), starts JupyterLab with the marking page (127.0.0.1) and Debian's Chromium, and prints
side by side:

* the server's start-up read of every answer (the background warm-up) — what a first open would
  otherwise pay;
* page open: navigation start → the page drawn and ready (first question's board inline),
  first open after the warm-up and reloads;
* next question (``]``): key → the new board drawn;
* move → paint (``j``/``k``): keydown → the frame with the new focus painted (rAF + task), one
  move at a time.
"""
import pathlib
import re
import statistics
import sys
import tempfile
import time

REPO = pathlib.Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "tests"), str(REPO / "autograde")]
import benchcli  # noqa: E402
from coursekit.marking import enable  # noqa: E402
from support.lab_page import VIEWPORT, chromium_browser  # noqa: E402
from support.lab_server import lab_server  # noqa: E402
from support.written_answers import write_written_class  # noqa: E402

READY_MS = "() => performance.now()"


def _stats(values) -> str:
    values = sorted(values)
    p95 = values[min(len(values) - 1, int(0.95 * len(values)))]
    return f"median {statistics.median(values):7.1f} ms   p95 {p95:7.1f} ms   max {values[-1]:7.1f} ms   (n={len(values)})"


def _open(page, server) -> float:
    page.goto(f"{server.url}marking/?token={server.token}&question=q_lab1_no_scale")
    page.wait_for_function("() => window.__marking && window.__marking.ready", polling=5)
    return page.evaluate(READY_MS)


def _warm_seconds(server, timeout=120) -> float:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if "marking page: answers of" in server.log():
            stamps = re.findall(r"\[I (\d\d\d\d-\d\d-\d\d \d\d:\d\d:\d\d\.\d+) ServerApp\] marking page", server.log())
            start, done = (time.mktime(time.strptime(s.split(".")[0], "%Y-%m-%d %H:%M:%S")) + float("0." + s.split(".")[1])
                           for s in (stamps[0], stamps[-1]))
            return done - start
        time.sleep(0.1)
    raise TimeoutError("the marking page never finished reading the answers")


def measure(server, page, opens: int, moves: int) -> dict:
    """The figures on a running marking page (``page``, a tab of its own): the server's warm-up, ``opens`` page opens,
    the questions one after another, ``moves`` j/k moves. tests/integration/test_marking_page.py takes these steps
    on its class of 300 (this bench's smoke)."""
    warm = _warm_seconds(server)
    opened = [_open(page, server) for _ in range(opens)]
    switches = []
    for _ in range(7):
        start = time.monotonic()
        question = page.evaluate("() => window.__marking.question")
        page.keyboard.press("]")
        page.wait_for_function("(q) => window.__marking.question !== q", arg=question, polling=5)
        page.evaluate("() => new Promise(r => requestAnimationFrame(() => setTimeout(r, 0)))")
        switches.append((time.monotonic() - start) * 1000)
    _open(page, server)
    page.wait_for_timeout(1000)  # the next question's board, fetched in the background, has arrived
    for i in range(moves):  # one move at a time, each waiting for its frame, as a marker reads
        page.keyboard.press("j" if i % 3 != 2 else "k")
        page.wait_for_function("(n) => window.__marking.moves.length >= n", arg=i + 1, polling=5)
    return {"warm": warm, "opens": opened, "switches": switches, "moves": page.evaluate("() => window.__marking.moves"),
            "groups": page.evaluate("() => window.__marking.current().count")}


def report(students: int, size: float, built: float, measured: dict) -> list:
    """The bench's lines: the class, then each figure of :func:`measure`."""
    return [f"class: {students} students × 8 written questions, autograded notebooks {size:.0f} MB "
            f"(built in {built:.1f} s); first question: {measured['groups']} groups on the page",
            f"server start-up read of every answer (background) : {measured['warm'] * 1000:7.0f} ms",
            f"page open, first after start-up                  : {measured['opens'][0]:7.1f} ms",
            f"page open, reloads                                : {_stats(measured['opens'][1:])}",
            f"next question (]) → drawn                         : {_stats(measured['switches'])}",
            f"move (j/k) → painted                              : {_stats(measured['moves'])}"]


def main() -> None:
    parser = benchcli.parser(__doc__, {"students": 3, "padding": 1000, "moves": 2, "opens": 2})
    parser.add_argument("--students", type=int, default=300, help="students in the synthetic class")
    parser.add_argument("--padding", type=int, default=500_000, help="bytes of output per autograded notebook")
    parser.add_argument("--moves", type=int, default=60, help="j/k moves timed, one at a time")
    parser.add_argument("--opens", type=int, default=5, help="page opens timed (the first after start-up, reloads)")
    args = benchcli.parse(parser)
    with tempfile.TemporaryDirectory(prefix="bench-marking-") as tmp:
        base = pathlib.Path(tmp)
        started = time.monotonic()
        write_written_class(base, args.students, padding=args.padding)
        built = time.monotonic() - started
        enable.write(base / "config", base / "lab-settings", "/")
        size = sum(p.stat().st_size for p in (base / "autograded").rglob("*.ipynb")) / 1e6
        with lab_server(base) as server, chromium_browser(base / "chromium", "the marking benchmark") as browser:
            measured = measure(server, browser.new_context(viewport=VIEWPORT).new_page(), args.opens, args.moves)
    print("\n".join(report(args.students, size, built, measured)))


if __name__ == "__main__":
    main()
