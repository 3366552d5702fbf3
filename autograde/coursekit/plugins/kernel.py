"""The kernel nbgrader starts to validate or autograde a notebook of this course.

``nbgrader_config.py`` makes nbgrader's executor start its kernels with
:class:`GradingKernelManager` (``c.Execute.kernel_manager_class``, read by ``nbgrader autograde``
and ``validate``, the formgrader's buttons and ``make grade``'s workers alike). The kernel learns
where the course's grader is from ``ATTN_GRADER`` — the hidden region of each test cell loads it
from there — without the config writing into nbgrader's own environment.
"""
import os

from jupyter_client.manager import AsyncKernelManager
from traitlets import Unicode

__all__ = ["GRADER_VARIABLE", "GradingKernelManager"]

GRADER_VARIABLE = "ATTN_GRADER"


class GradingKernelManager(AsyncKernelManager):
    """jupyter_client's AsyncKernelManager whose kernels are told where the grader is.

    Asynchronous like nbclient's own default: with a blocking manager nbclient's client waits for
    output in a blocking poll, and neither the cell timeout nor a dead kernel is ever noticed.
    """

    grader = Unicode("", help="The course's grader (…/grader/__init__.py); the kernel gets it as "
                              "ATTN_GRADER. Empty: the kernel inherits nbgrader's environment.").tag(config=True)

    async def start_kernel(self, **kw):
        env = dict(kw.pop("env", None) or os.environ)
        if self.grader:
            env[GRADER_VARIABLE] = self.grader
        return await super().start_kernel(env=env, **kw)
