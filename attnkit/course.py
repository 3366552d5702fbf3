"""The chapter's plug-in for the course toolkit (``c.CourseKit.assignments`` in the course's nbgrader_config.py).

What Chapter 4 adds to a plain nbgrader assignment, read by ``coursekit`` (which never imports attnkit
itself, :mod:`coursekit.assignments`): the modules its grading kernels import before any student, the
package folder they must see, the delegation probe its grader calls the student's functions through,
the figures drawn once before grading and shown read-only to every kernel, what to reteach for each
mistake its diagnosis names and what it is called (and which findings it has no name for), what its graded
cells are called, its release stubs in each edition's language and the metadata its releases must not carry
(each cell's English). Loaded by the grading processes and the
instructor's tools only.
"""
import os


__all__ = ["PRELOAD", "FOLDERS", "CALL_HOOK", "SHARED_ENV", "PRIVATE_METADATA", "prepare", "shared_folder", "reteach",
           "unnamed", "mistake_name", "cell_names", "stubs"]

# What a graded kernel of the chapter imports (measured: sys.modules at the end of an autograded notebook). None
# of these starts a thread, so the kernel template may fork after importing them.
PRELOAD = ("numpy", "matplotlib.pyplot", "matplotlib_inline.backend_inline", "attnkit", "attnkit.cost",
           "attnkit.diagnose", "attnkit.figures", "attnkit.plotting", "attnkit.diagnose_plot")
# attnkit's own folder, never its parent: in an editable install that is the repository, with the course in it
FOLDERS = (os.path.dirname(os.path.abspath(__file__)),)
CALL_HOOK = "attnkit.guard:guarded_call"  # the delegation probe (attnkit.guard), on the student's side of each call
SHARED_ENV = "ATTNKIT_CACHE_DIR"  # where attnkit.static finds the figures drawn before grading
# Where the master kept each cell's English (attnkit.edition.KEY), reference answers included: never in a release
# (the translations now live in autograde/locale, outside every release; a master that still has it keeps it private)
PRIVATE_METADATA = ("translation",)


def shared_folder() -> str:
    """The figure cache the grading kernels read (attnkit.static's, of the grading process)."""
    from .static import cache_dir
    return str(cache_dir())


async def prepare(course, shared, log) -> None:
    """The course's release drawn once, outside the sandbox, into the figure cache (:mod:`attnkit.figure_cache`)."""
    from .figure_cache import warm
    await warm(course, shared, log)


def reteach(bug: str, lang: str) -> str:
    """For the class report: what to reteach for a mistake the diagnosis names, in ``lang`` (:mod:`attnkit.reteach`)."""
    from .reteach import reteach as note
    return note(bug, lang)


def mistake_name(bug: str, lang: str) -> str:
    """For the class report: what a mistake the diagnosis names is called, in ``lang`` (:mod:`attnkit.mistake_names`)."""
    from .mistake_names import mistake_name as name
    return name(bug, lang)


def unnamed(bug: str) -> bool:
    """For the course's "may be hard-coded" flag: is ``bug`` a finding the diagnosis has no name for (a function's
    wrong values), which explains nothing (:data:`attnkit.reteach.GENERIC_KINDS`' ``wrong_values``)?"""
    from .lab import STAGES
    return bug in {f"{stage}_wrong_values" for stage in STAGES}


def cell_names(nb) -> dict:
    """Each test cell of the chapter named with its TEST number first (``TEST 1 · 任务 2：实现 …``), as the numbers
    the cell prints; each written question by its heading without the points the heading states (``思考题 1``: the
    feedback and the marking page show the points). The headings are the course toolkit's names for the cells
    (:mod:`coursekit.cell_names`)."""
    from coursekit.cell_names import cell_names as headings
    from coursekit.cell_names import without_points

    from .gradecell import TEST_CELLS
    from .language import of_notebook

    named = headings(nb, of_notebook(nb))  # two cells under one heading told apart in the notebook's own words
    tests = {test.grade_id: name if f"TEST {test.number}" in name else f"TEST {test.number} · {name}"
             for test in TEST_CELLS if (name := named.get(test.grade_id))}
    return {**{grade_id: without_points(name) for grade_id, name in named.items() if grade_id not in tests}, **tests}


def stubs(nb) -> dict:
    """What the release puts where a solution was, in the edition's language (:func:`attnkit.edition.stubs`): the
    C lab's input checks stay outside the solution region, so an untouched function still returns 0 / returns
    quietly, and verify shows the lab's baseline instead of a NotImplementedError traceback."""
    from .edition import stubs as in_language
    from .language import of_notebook

    return in_language(of_notebook(nb))
