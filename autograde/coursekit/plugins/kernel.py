"""The kernel nbgrader starts to validate or autograde a notebook of this course.

``nbgrader_config.py`` makes nbgrader's executor start its kernels with
:class:`GradingKernelManager` (``c.Execute.kernel_manager_class``, read by ``nbgrader autograde``
and ``validate``, the formgrader's buttons and ``make grade``'s workers alike). The kernel learns
where the course's grader is from ``ATTN_GRADER`` — the hidden region of each test cell loads it
from there — without the config writing into nbgrader's own environment.
"""
import os

from jupyter_client.manager import KernelManager
from traitlets import Unicode

__all__ = ["GRADER_VARIABLE", "GradingKernelManager"]

GRADER_VARIABLE = "ATTN_GRADER"


class GradingKernelManager(KernelManager):
    """jupyter_client's KernelManager whose kernels are told where the grader is."""

    grader = Unicode("", help="The course's grader (…/grader/__init__.py); the kernel gets it as "
                              "ATTN_GRADER. Empty: the kernel inherits nbgrader's environment.").tag(config=True)

    def start_kernel(self, **kw):
        env = dict(kw.pop("env", None) or os.environ)
        if self.grader:
            env[GRADER_VARIABLE] = self.grader
        return super().start_kernel(env=env, **kw)
