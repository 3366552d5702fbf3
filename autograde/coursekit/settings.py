"""A course's own nbgrader settings, read the way nbgrader reads them (``nbgrader_config.py``).

Commands that are not nbgrader apps (``make grade``, ``make report``) need a few of those
settings — the course id, the gradebook URL — without building an nbgrader application. The
file holds settings only, so loading it has no effect beyond the values it returns.
"""
import functools
import os
import pathlib
from dataclasses import dataclass

from traitlets.config.loader import PyFileConfigLoader

from .environ import SANDBOX
from .language import DEFAULT, checked
from .paths import CONFIG_FILE

__all__ = ["SIMILARITY_THRESHOLD", "STUDENT_SECONDS", "FLOOR_TIMEOUTS", "MULTIPLE", "OVER_BUDGET",
           "MAX_SUBMISSION_BYTES", "MAX_SUBMISSION_FILES", "UNSANDBOXED", "CourseSettings", "course_settings", "course_config", "config_section", "course_language",
           "similarity_threshold", "checked_threshold", "checked_seconds", "sandbox_default", "switched_on"]

DEFAULT_COURSE_ID = "default_course"  # nbgrader's Gradebook's course when a config names none (tests/unit/test_upstream.py)
# c.CourseKit.similarity_threshold: a pair of students scoring at least this is flagged in the class report
# (coursekit.report.similarity). The middle of the gap measured on tests/support/planted_pairs.py: every planted
# copy scores 0.49 or more, no pair of independent work more than 0.35.
SIMILARITY_THRESHOLD = 0.42
# c.CourseKit.student_seconds: one student's share of the class's time, in make grade and the grading service alike.
# None: derived from what the course measures (coursekit.canary.student_budget). Its output share is
# c.GradingKernelManager.notebook_output_limit (every grading path caps it).
STUDENT_SECONDS = None
# Derived, it is MULTIPLE × the untouched release's grading time (measured warm), at least FLOOR_TIMEOUTS cell
# timeouts. The floor: a function that loops forever costs one cell timeout and is not called again
# (attnkit.safecall), so an honest submission whose three graded functions all hang needs three timeouts, and is
# scored cell by cell by the cell timeout, never stopped whole. The multiple: an honest submission grades in 1–2×
# the release's time (its functions' checks added), so 30× is slack for a loaded machine.
FLOOR_TIMEOUTS, MULTIPLE = 3, 30
# what a student over it is told (the service's page, make grade's gradebook comment), in both languages at once
OVER_BUDGET = "评分超过 {seconds:g} 秒仍未结束，已被停止（Grading took longer than {seconds:g} s and was stopped）"
# c.CourseKit.max_submission_bytes and max_submission_files: what one submission folder of the exchange's inbound/
# may hold to be collected (coursekit.inbound). Ten times a run notebook with its figures; nbgrader submit makes 3 files.
MAX_SUBMISSION_BYTES = 20 * 1024 ** 2
MAX_SUBMISSION_FILES = 200
# what every grading command says, once per kernel or per run, when the sandbox is off (c.GradingKernelManager.sandbox)
UNSANDBOXED = ("GRADING WITHOUT A SANDBOX (ATTN_SANDBOX=off): this student's code runs with your rights and "
               "can read or change the grader, the gradebook and other students' work.")


@dataclass(frozen=True)
class CourseSettings:
    course_id: str
    db_url: str     # "" when the config names no gradebook
    exchange: str   # "" when the config names no exchange root
    sandbox: bool = True  # grading kernels run in the sandbox (GradingKernelManager.sandbox, else ATTN_SANDBOX)
    language: str = DEFAULT  # what the instructor's tools speak (c.CourseKit.language): report, marking page, make grade
    similarity_threshold: float = SIMILARITY_THRESHOLD  # c.CourseKit.similarity_threshold: from it, a pair is flagged
    student_seconds: float | None = STUDENT_SECONDS  # c.CourseKit.student_seconds; None: derived (coursekit.canary)


def switched_on(variable: str) -> bool:
    """A grading switch from the environment: on unless ``variable`` says off (or 0, false, no)."""
    return os.environ.get(variable, "on").strip().lower() not in ("off", "0", "false", "no")


def sandbox_default() -> bool:
    """On unless the environment says ``ATTN_SANDBOX=off``."""
    return switched_on(SANDBOX)


@functools.lru_cache(maxsize=8)
def _load(config_file: pathlib.Path, version: tuple):  # version: (mtime_ns, size), so an edit counts
    return PyFileConfigLoader(config_file.name, path=str(config_file.parent)).load_config()


def course_config(course):
    """The loaded ``<course>/nbgrader_config.py`` (read again once it changed); None when there is none."""
    config_file = pathlib.Path(course).resolve() / CONFIG_FILE
    if not config_file.is_file():
        return None
    stat = config_file.stat()
    return _load(config_file, (stat.st_mtime_ns, stat.st_size))


def course_settings(course) -> CourseSettings:
    """What ``<course>/nbgrader_config.py`` sets (defaults where it is silent or absent)."""
    config = course_config(course)
    if config is None:
        return CourseSettings(DEFAULT_COURSE_ID, "", "", sandbox_default())
    directory, exchange = config.get("CourseDirectory", {}), config.get("Exchange", {})
    kernel = config.get("GradingKernelManager", {})
    return CourseSettings(str(directory.get("course_id", DEFAULT_COURSE_ID)), str(directory.get("db_url", "")),
                          str(exchange.get("root", "")), bool(kernel.get("sandbox", sandbox_default())),
                          _language(course, config), _threshold(course, config), _seconds(course, config))


def _language(course, config) -> str:
    """``c.CourseKit.language`` (Chinese unless the config says otherwise); a value no tool speaks names the file."""
    where = f"{pathlib.Path(course).resolve() / CONFIG_FILE}: c.CourseKit.language"
    return checked(config.get("CourseKit", {}).get("language", DEFAULT), where)


def checked_threshold(value, where: str = "c.CourseKit.similarity_threshold") -> float:
    """``value`` as a threshold of similarity (a number above 0, at most 1); else a ValueError naming ``where``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= 1:
        raise ValueError(f"{where} must be a number above 0 and at most 1 (a share of two students' work), "
                         f"got {value!r}")
    return float(value)


def _threshold(course, config) -> float:
    """``c.CourseKit.similarity_threshold`` (:data:`SIMILARITY_THRESHOLD` unless the config says otherwise)."""
    where = f"{pathlib.Path(course).resolve() / CONFIG_FILE}: c.CourseKit.similarity_threshold"
    return checked_threshold(config.get("CourseKit", {}).get("similarity_threshold", SIMILARITY_THRESHOLD), where)


def checked_seconds(value, where: str = "c.CourseKit.student_seconds") -> float | None:
    """``value`` as one student's grading time (a number of seconds above 0, or None: derived from the canary);
    else a ValueError naming ``where``."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
        raise ValueError(f"{where} must be a number of seconds above 0, got {value!r} (or None, its default: derived "
                         f"from the release's grading time)")
    return float(value)


def _seconds(course, config) -> float:
    where = f"{pathlib.Path(course).resolve() / CONFIG_FILE}: c.CourseKit.student_seconds"
    return checked_seconds(config.get("CourseKit", {}).get("student_seconds", STUDENT_SECONDS), where)


def similarity_threshold(course) -> float:
    """From which score the class report of ``course`` flags a pair (:attr:`CourseSettings.similarity_threshold`)."""
    return course_settings(course).similarity_threshold


def course_language(course) -> str:
    """The language of the instructor's tools for ``course`` (:attr:`CourseSettings.language`)."""
    return course_settings(course).language


def config_section(course, name: str) -> dict:
    """The plain values ``<course>/nbgrader_config.py`` sets for ``c.<name>.…`` ({} when none)."""
    config = course_config(course)
    return {} if config is None else dict(config.get(name, {}))
