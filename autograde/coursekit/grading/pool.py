"""Grading processes: fresh interpreters, one job at a time each, watched; ``make grade``'s and the grading service's.

Each worker (:func:`serve`) is started with ``spawn`` (nothing inherited but what it is given), builds
its handler once (:class:`Setup`: nbgrader's app and the canary, :mod:`coursekit.canary`), says
:class:`Ready`, then takes jobs from its own queue, so the parent always knows which job each one
holds. It tells the parent what happens in the messages below, dataclasses on one results queue.
A fault of the machine while setting up or on a job (:class:`~coursekit.faults.InfrastructureFault`)
is :class:`Faulted`, never a result. A worker dies with its parent (``PR_SET_PDEATHSIG``); one that
dies otherwise is seen by :meth:`WorkerPool.dead` with the job it held.

Its log (nbgrader's, and what kernels print) goes to ``<logs>/<name>-<k>.log``.
"""
import ctypes
import dataclasses
import gc
import multiprocessing
import os
import pathlib
import queue
import signal
import sys
import time

from ..faults import InfrastructureFault

__all__ = ["STOP_SECONDS", "LOGS", "Ready", "Started", "Note", "Done", "Faulted", "Exited", "WorkerPool", "serve",
           "log_to", "terminate_with_parent"]

LOGS = "grading-logs"  # in the course folder
STOP_SECONDS = 30  # after a stop: how long workers get to stop their kernels before being killed


@dataclasses.dataclass(frozen=True)
class Ready:
    worker: int


@dataclasses.dataclass(frozen=True)
class Started:
    worker: int
    job: object


@dataclasses.dataclass(frozen=True)
class Note:
    """Something a handler tells before its job is done (the service: the grade, before the feedback)."""
    worker: int
    job: object
    what: object


@dataclasses.dataclass(frozen=True)
class Done:
    worker: int
    job: object
    outcome: object


@dataclasses.dataclass(frozen=True)
class Faulted:
    """The machine failed on ``job`` (None: while the worker set up): nobody's grade; ``fault`` (an
    :class:`~coursekit.faults.InfrastructureFault`, its message ids and values) says what to fix, in the reader's
    language."""
    worker: int
    job: object
    fault: InfrastructureFault


@dataclasses.dataclass(frozen=True)
class Exited:
    worker: int


def serve(index: int, setup, jobs, results, log_path: str) -> None:
    """Process body: ``handler = setup(note)``, then ``handler(job)`` for each job until ``None``."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides; it sends SIGTERM
    signal.signal(signal.SIGTERM, _interrupt)
    terminate_with_parent()
    log_to(log_path)
    job = None
    try:
        handler = setup(lambda what: results.put(Note(index, job, what)))
        results.put(Ready(index))
        while (job := jobs.get()) is not None:
            results.put(Started(index, job))
            try:
                results.put(Done(index, job, handler(job)))
            except InfrastructureFault as fault:
                print(f"{fault}", file=sys.stderr, flush=True)
                results.put(Faulted(index, job, fault))
            _freeze_once()
    except InfrastructureFault as fault:  # while setting up
        print(f"{fault}", file=sys.stderr, flush=True)
        results.put(Faulted(index, None, fault))
    except KeyboardInterrupt:
        pass
    finally:
        results.put(Exited(index))


def _freeze_once() -> None:
    """After the first job, nbgrader's, SQLAlchemy's and nbconvert's objects all exist: the collector stops
    walking them for every later job."""
    if not gc.get_freeze_count():
        gc.collect()
        gc.freeze()


class WorkerPool:
    """``count`` workers running :func:`serve` with ``setup``; the parent gives each one job at a time."""

    def __init__(self, setup, count: int, logs, name: str):
        self.setup, self.logs, self.name = setup, pathlib.Path(logs), name
        self.context = multiprocessing.get_context("spawn")  # clean interpreters: nothing inherited but sys.path
        self.results = self.context.Queue()
        self.procs, self.jobs = [None] * count, [None] * count
        self.holding, self.ready = [None] * count, [False] * count
        for index in range(count):
            self._start(index)

    def _start(self, index: int) -> None:
        self.jobs[index] = self.context.Queue()
        self.procs[index] = self.context.Process(
            target=serve, name=f"{self.name}-{index}", daemon=True,
            args=(index, self.setup, self.jobs[index], self.results, str(self.logs / f"{self.name}-{index}.log")))
        self.procs[index].start()
        self.holding[index], self.ready[index] = None, False

    def idle(self) -> list:
        """The workers set up, alive and holding no job."""
        return [k for k, job in enumerate(self.holding)
                if job is None and self.ready[k] and self.procs[k].is_alive()]

    def send(self, index: int, job) -> None:
        self.holding[index] = job
        self.jobs[index].put(job)

    def finished(self, index: int) -> None:
        self.holding[index] = None

    def get(self, timeout: float):
        """The next message of any worker (a :class:`Ready` is noted here too), or None after ``timeout`` s."""
        try:
            message = self.results.get(timeout=timeout)
        except queue.Empty:
            return None
        if isinstance(message, Ready):
            self.ready[message.worker] = True
        return message

    def dead(self, restart: bool = True) -> list:
        """(index, the job it held or None, exit code) of every worker that has died; each started again."""
        found = []
        for index, proc in enumerate(self.procs):
            if proc is not None and not proc.is_alive():
                found.append((index, self.holding[index], proc.exitcode))
                proc.join()
                if restart:
                    self._start(index)
                else:
                    self.procs[index], self.holding[index] = None, None
        return found

    def alive(self) -> list:
        return [k for k, proc in enumerate(self.procs) if proc is not None and proc.is_alive()]

    def replace(self, index: int):
        """Stop worker ``index`` now (its job overran) and start a new one; the job it held."""
        job = self.holding[index]
        _stop([self.procs[index]])
        self._start(index)
        return job

    def stop(self) -> None:
        """No more jobs: an idle worker ends at once; a busy one gets SIGTERM (nbgrader cleans up the student in
        progress), then SIGKILL."""
        for index, proc in enumerate(self.procs):
            if proc is not None and self.holding[index] is None:
                self.jobs[index].put(None)
        _stop([proc for proc in self.procs if proc is not None], busy={
            self.procs[k].pid for k, job in enumerate(self.holding) if job is not None and self.procs[k]})


def _stop(procs, busy=None) -> None:
    """SIGTERM each of ``procs`` still running (only ``busy`` pids at first: idle ones were told to end), again every
    second (a KeyboardInterrupt raised inside a finalizer is lost), SIGKILL after :data:`STOP_SECONDS`."""
    deadline, first = time.monotonic() + STOP_SECONDS, True
    try:
        while any(proc.is_alive() for proc in procs) and time.monotonic() < deadline:
            for proc in procs:
                if proc.is_alive() and (busy is None or proc.pid in busy or not first):
                    proc.terminate()
            first = False
            for proc in procs:
                proc.join(max(0.0, min(1.0, deadline - time.monotonic())) / len(procs))
    except KeyboardInterrupt:
        pass
    for proc in procs:
        if proc.is_alive():
            proc.kill()  # its kernels go with their template, which dies with it
        proc.join()


def _interrupt(signum, frame):
    raise KeyboardInterrupt


def terminate_with_parent() -> None:
    """SIGTERM this worker when its parent dies without stopping it (SIGKILL, a closed terminal).

    multiprocessing's daemon flag only covers a parent that exits normally. Linux only; elsewhere
    a killed parent leaves the worker to finish its job.
    """
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return
    if os.getppid() == 1:  # the parent died before the call
        os.kill(os.getpid(), signal.SIGTERM)


def log_to(path: str) -> None:
    """This process's stdout/stderr (nbgrader's log, kernels' output) into ``path``."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    sys.stdout.flush(), sys.stderr.flush()
    os.dup2(fd, 1), os.dup2(fd, 2)
    os.close(fd)
