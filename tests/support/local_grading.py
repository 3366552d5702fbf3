"""The grader's view of a student's functions, with the process boundary folded into one process: for unit tests.

:class:`InProcess` is coursekit's own :class:`~coursekit.sandbox.grader_host.Functions` with its one
step across the boundary replaced: instead of a socket to the student's kernel, each call's arguments
go through the same encoding (:mod:`coursekit.sandbox.calls`) into fresh arrays, the function runs
through the kernel's call hook (attnkit.guard's delegation probe, as the course configures it), and the
arrays and the result come back the same way. What a real kernel adds — a process, a sandbox, the cell's
time limit — is tested through make grade (tests/integration).
"""
from attnkit import language
from attnkit.guard import guarded_call
from coursekit.sandbox.calls import buffers_of, decode, encode, write_back
from coursekit.sandbox.grader_host import Functions

__all__ = ["InProcess"]


class InProcess(Functions):
    """The student's functions by name (``namespace``), called as the grader process calls them, in a kernel whose
    edition chose ``lang`` (its set-up cell's ``use_language``: what the probe's own words are in)."""

    def __init__(self, namespace: dict, hook=guarded_call, lang: str = "zh"):
        self.namespace, self.hook, self.gone, self.lang = namespace, hook, "", lang
        self._functions = {}
        self.start_cell()

    def call(self, name: str, args: tuple, watch) -> dict:
        message, roots = encode(args)
        copies, buffers = decode(message)
        with language.using(self.lang):  # a KeyboardInterrupt goes on up, as a timeout
            answer = self.hook(self.namespace[name], copies, watch)
        write_back(roots, buffers_of(buffers))
        answer["returned"] = decode(encode((answer.get("returned"),))[0])[0][0]
        self.forbidden.update(answer.get("forbidden") or ())
        if answer.get("limit"):
            self.limits.add(answer["limit"])
        return answer
