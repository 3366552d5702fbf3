"""The service's grading processes: started, given one job each, watched, replaced when they die.

Each worker (:func:`.worker.serve`) is a fresh interpreter (``spawn``), as ``make grade``'s
are, with its own job queue so the scheduler knows which job each one holds; all report on one
results queue. A worker that dies or overruns its job is replaced by a new one.
"""
import multiprocessing
import pathlib
import queue

from .worker import serve

__all__ = ["WorkerPool"]

STOP_SECONDS = 30


class WorkerPool:
    def __init__(self, course, db_url: str, count: int, logs: pathlib.Path, assignments=()):
        self.course, self.db_url, self.logs = str(course), db_url, pathlib.Path(logs)
        self.assignments = list(assignments)
        self.context = multiprocessing.get_context("spawn")
        self.results = self.context.Queue()
        self.procs, self.jobs = [None] * count, [None] * count
        self.holding = [None] * count  # the job each worker has, None when idle
        for index in range(count):
            self._start(index)

    def _start(self, index: int) -> None:
        self.jobs[index] = self.context.Queue()
        self.procs[index] = self.context.Process(
            target=serve, name=f"grading-service-worker-{index}", daemon=True,
            args=(index, self.course, self.db_url, self.assignments, self.jobs[index], self.results,
                  str(self.logs / f"service-worker-{index}.log")))
        self.procs[index].start()
        self.holding[index] = None

    def idle(self) -> list:
        return [k for k, job in enumerate(self.holding) if job is None and self.procs[k].is_alive()]

    def send(self, index: int, job) -> None:
        self.holding[index] = job
        self.jobs[index].put(job)

    def finished(self, index: int) -> None:
        self.holding[index] = None

    def dead(self) -> list:
        """(index, the job it held or None) of every worker that has died; each is started again."""
        found = []
        for index, proc in enumerate(self.procs):
            if not proc.is_alive():
                found.append((index, self.holding[index]))
                proc.join()
                self._start(index)
        return found

    def replace(self, index: int):
        """Stop worker ``index`` now (its job overran) and start a new one; the job it held."""
        job, proc = self.holding[index], self.procs[index]
        proc.terminate()
        proc.join(STOP_SECONDS)
        if proc.is_alive():
            proc.kill()
            proc.join()
        self._start(index)
        return job

    def get(self, timeout: float):
        """The next report of any worker, or None after ``timeout`` seconds."""
        try:
            return self.results.get(timeout=timeout)
        except queue.Empty:
            return None

    def stop(self) -> None:
        """Let each worker finish nothing more: SIGTERM (nbgrader cleans up), then SIGKILL."""
        for proc in self.procs:
            if proc.is_alive():
                proc.terminate()
        for proc in self.procs:
            proc.join(STOP_SECONDS)
            if proc.is_alive():
                proc.kill()
                proc.join()
