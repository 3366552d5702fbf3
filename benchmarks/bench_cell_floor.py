"""What a student's cells cost with and without the kernel protocol: the floor an executor could reach.

Run: .venv/bin/python benchmarks/bench_cell_floor.py [--n 40]
For issue 21 (a class of 300 in a minute): how much of a graded student's CPU is the chapter's own
work, and how much ipykernel, zmq and nbclient add around it. (Written before the cell runner,
coursekit.sandbox.cells, existed: ``bench_class.py`` measures the runner itself.) The same N notebooks (the master's
cells, the mistake table's functions typed in, in turn; hidden tests included, as autograde runs
them, with ``NBGRADER_EXECUTION=autograde``) run two ways, one after the
other in this one process, and the table gives CPU seconds per student side by side:

* **fresh ipykernel**: each notebook by nbclient in a new ipykernel (what grading does, without
  the sandbox; the kernel's CPU read from /proc, nbclient's from this process), less what a kernel
  that runs no cell costs (start-up and the imports of :data:`PRELOAD`, which grading's template pays once);
* **forked IPython**: a pre-imported parent forks one child per student; the child runs the cells
  with IPython's ``InteractiveShell.run_cell`` and sends every cell's outputs back over a pipe as
  JSON; nothing else (no ipykernel, no zmq, no jupyter_client). Not a grader: no timeouts, no
  sandbox, stdin and C-level output not handled. Its outputs are only counted; each cell's CPU is
  read in the child, and the ten costliest cells close the table.

Both figures leave out nbgrader's own bookkeeping (``benchmarks/bench_class.py`` has it).
Nothing is written outside a temporary directory.
"""
import json
import os
import pathlib
import sys
import tempfile
import time

import nbformat
from jupyter_client.manager import AsyncKernelManager
from nbclient import NotebookClient

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))  # the shared test support: the mistake table
import benchcli  # noqa: E402
from coursekit.paths import MASTER  # noqa: E402
from coursekit.sandbox.forkserver import ForkedKernel  # noqa: E402
from support.course_tools import cells_by_id  # noqa: E402
from support.mistakes import MISTAKES, mistake_notebook, release  # noqa: E402

PRELOAD = ("numpy", "attnkit", "attnkit.diagnose", "attnkit.figures", "attnkit.plotting", "attnkit.diagnose_plot",
           "matplotlib.pyplot", "IPython")
# the kernel imports them as it starts, as grading's template does before it forks: they count as start-up
PREIMPORT = f"--IPKernelApp.exec_lines={[f'import {name}' for name in PRELOAD]}"


def notebooks(folder: pathlib.Path, n: int) -> list:
    """``n`` notebooks (path, notebook) in folders of their own, cycling through the mistake table: the release
    with the functions typed in, its test cells as autograde restores them (the master's, hidden tests included)."""
    tests = {grade_id: cell.source for grade_id, cell in cells_by_id(nbformat.read(MASTER, as_version=4)).items()
             if grade_id.startswith("test")}
    found = []
    for k in range(n):
        nb = mistake_notebook(release(), MISTAKES[k % len(MISTAKES)])
        for grade_id, cell in cells_by_id(nb).items():
            cell.source = tests.get(grade_id, cell.source)
        path = folder / f"s{k:03d}" / "ch04_attention.ipynb"
        path.parent.mkdir(parents=True)
        nbformat.write(nb, path)
        found.append((path, nb))
    return found


class _Kernel(AsyncKernelManager):
    """nbclient's kernel manager, adding up its kernels' CPU (read just before each is stopped)."""

    cpu = [0.0]

    async def shutdown_kernel(self, now=False, restart=False):
        self.cpu[0] += ForkedKernel(self.provisioner.process.pid).cpu_seconds()  # any pid: /proc's clock
        await super().shutdown_kernel(now=now, restart=restart)


def by_kernel(found: list) -> tuple:
    """(kernel CPU, nbclient CPU, wall) seconds per student."""
    _Kernel.cpu[0], client_cpu, started = 0.0, time.process_time(), time.perf_counter()
    for path, nb in found:
        NotebookClient(nbformat.from_dict(nb), kernel_manager_class=_Kernel, timeout=60, allow_errors=True,
                       shutdown_kernel="immediate", extra_arguments=["--HistoryManager.hist_file=:memory:", PREIMPORT],
                       resources={"metadata": {"path": str(path.parent)}}).execute()
    n = len(found)
    return _Kernel.cpu[0] / n, (time.process_time() - client_cpu) / n, (time.perf_counter() - started) / n


def _run_cells(cells: list, out: int) -> None:
    """In the child: every cell through one IPython, its outputs collected as nbformat dicts, sent as JSON."""
    from IPython.core.displayhook import DisplayHook
    from IPython.core.displaypub import DisplayPublisher
    from IPython.core.interactiveshell import InteractiveShell

    outputs = []

    class Publisher(DisplayPublisher):
        def publish(self, data, metadata=None, source=None, *, transient=None, update=False, **kwargs):
            outputs[-1].append({"output_type": "display_data", "data": data, "metadata": metadata or {}})

        def clear_output(self, wait=False):
            outputs[-1].clear()

    class Hook(DisplayHook):
        def write_output_prompt(self):
            pass

        def write_format_data(self, format_dict, md_dict=None):
            outputs[-1].append({"output_type": "execute_result", "data": format_dict, "metadata": md_dict or {},
                                "execution_count": self.shell.execution_count})

        def finish_displayhook(self):
            pass

    class Stream:
        def __init__(self, name):
            self.name = name

        def write(self, text):
            cell = outputs[-1]
            if cell and cell[-1]["output_type"] == "stream" and cell[-1]["name"] == self.name:
                cell[-1]["text"] += text
            else:
                cell.append({"output_type": "stream", "name": self.name, "text": text})
            return len(text)

        def flush(self):
            pass

    shell = InteractiveShell.instance(display_pub_class=Publisher, displayhook_class=Hook)
    shell._showtraceback = lambda etype, evalue, stb: outputs[-1].append(
        {"output_type": "error", "ename": etype.__name__, "evalue": str(evalue), "traceback": stb})
    sys.stdout, sys.stderr = Stream("stdout"), Stream("stderr")
    spent = []  # CPU seconds of each cell, in this child
    for source in cells:
        outputs.append([])
        before = time.process_time()
        shell.run_cell(source, store_history=True)
        spent.append(time.process_time() - before)
    os.write(out, json.dumps({"outputs": outputs, "cpu": spent}, default=str).encode())


def _cell_name(cell) -> str:
    """A code cell as the table names it: its nbgrader id, else its first line."""
    grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
    return grade_id or (cell.source.strip().splitlines() or [""])[0][:40]


def by_fork(found: list) -> tuple:
    """(child CPU, parent CPU, wall) seconds per student, the outputs counted, and {cell: CPU s per student}."""
    import importlib
    for name in PRELOAD:
        importlib.import_module(name)
    before, started, outputs, per_cell = os.times(), time.perf_counter(), 0, {}
    for path, nb in found:
        code = [cell for cell in nb.cells if cell.cell_type == "code"]
        cells = [cell.source for cell in code]
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(read)
            os.chdir(path.parent)
            try:
                _run_cells(cells, write)
            finally:
                os._exit(0)
        os.close(write)
        chunks = []
        while chunk := os.read(read, 1 << 20):
            chunks.append(chunk)
        os.close(read)
        os.waitpid(pid, 0)
        sent = json.loads(b"".join(chunks))
        outputs += sum(len(cell) for cell in sent["outputs"])
        for cell, seconds in zip(code, sent["cpu"]):
            per_cell[_cell_name(cell)] = per_cell.get(_cell_name(cell), 0.0) + seconds / len(found)
    after, n = os.times(), len(found)
    child = (after.children_user + after.children_system - before.children_user - before.children_system) / n
    return child, (after.user + after.system - before.user - before.system) / n, \
        (time.perf_counter() - started) / n, outputs / n, per_cell


def main() -> None:
    parser = benchcli.parser(__doc__, {"n": 1})
    parser.add_argument("--n", type=int, default=40, help="students (notebooks), cycling through the mistake table")
    args = benchcli.parse(parser)
    os.environ.update(NBGRADER_EXECUTION="autograde", OPENBLAS_NUM_THREADS="1", MPLBACKEND="agg")
    with tempfile.TemporaryDirectory() as tmp:
        found = notebooks(pathlib.Path(tmp), args.n)
        empty = [(path, nbformat.v4.new_notebook()) for path, _ in found]
        start = by_kernel(empty)  # a kernel started, asked for its info and stopped: no cell
        kernel = by_kernel(found)
        child, parent, fork_wall, outputs, per_cell = by_fork(found)
    cells = (kernel[0] - start[0], kernel[1] - start[1])
    print(f"{args.n} students, CPU seconds per student (one run, side by side; wall: the whole notebook)")
    print(f"{'':<34} {'kernel':>7} {'driver':>7} {'total':>7} {'wall':>7}")
    print(f"{'fresh ipykernel: start, stop':<34} {start[0]:>7.3f} {start[1]:>7.3f} {sum(start[:2]):>7.3f}")
    print(f"{'fresh ipykernel: the cells':<34} {cells[0]:>7.3f} {cells[1]:>7.3f} {sum(cells):>7.3f} {kernel[2]:>7.3f}")
    print(f"{'forked IPython: the cells':<34} {child:>7.3f} {parent:>7.3f} {child + parent:>7.3f} {fork_wall:>7.3f}")
    print(f"the cells cost {sum(cells) / (child + parent):.1f}x through the kernel protocol; "
          f"the forked run's outputs: {outputs:.0f} per student")
    print(f"\nthe forked run's costliest cells, CPU s per student (of {child:.3f}):")
    for name, seconds in sorted(per_cell.items(), key=lambda item: -item[1])[:10]:
        print(f"  {seconds:>7.3f}  {name}")


if __name__ == "__main__":
    main()
