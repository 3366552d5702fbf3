"""A course's own settings, read once, the way nbgrader reads them (``nbgrader_config.py``), with traitlets.

:func:`course_config` is the one reader of the course's ``nbgrader_config.py`` (loaded again only once it changed);
:func:`course_settings` is the course as every command sees it (:class:`CourseSettings`), its values checked by the
settings' own classes: :class:`CourseKit` (``c.CourseKit``) and :class:`GradingService` (``c.GradingService``), and,
above this module, the late policy (:func:`coursekit.late.late_policy`). A wrong value, or a name no class knows, is
refused once by :func:`checked_settings`, as a :class:`CourseConfigError` naming the file and the key. The file holds settings
only, so loading it has no effect beyond the values it returns.

The grading service reads the whole of nbgrader's configuration as nbgrader's own commands do (every config file on
Jupyter's path, for the exchange's classes): :func:`coursekit.service.inbox.nbgrader_config`.
"""
import datetime
import functools
import os
import re
import pathlib
import zoneinfo
from dataclasses import dataclass

from traitlets import Bool, Dict, Float, Integer, List, TraitError, Tuple, Unicode, validate
from traitlets.config import Config, Configurable
from traitlets.config.loader import PyFileConfigLoader

from .environ import SANDBOX
from .language import DEFAULT, LANGUAGES, WORDS, checked
from .paths import CONFIG_FILE

__all__ = ["SIMILARITY_THRESHOLD", "STUDENT_SECONDS", "FLOOR_TIMEOUTS", "MULTIPLE", "over_budget",
           "MAX_SUBMISSION_BYTES", "MAX_SUBMISSION_FILES", "unsandboxed", "CourseConfigError", "CourseKit",
           "GradingService", "CourseSettings", "checked_settings", "course_settings", "course_config", "checked_threshold",
           "checked_seconds", "checked_timezone", "checked_regrade_deadlines", "sandbox_default", "switched_on"]

DEFAULT_COURSE_ID = "default_course"  # nbgrader's Gradebook's course when a config names none (tests/unit/test_upstream.py)
# c.CourseKit.similarity_threshold: a pair of students scoring at least this is flagged in the class report
# (coursekit.report.similarity). The middle of the gap measured on tests/support/planted_pairs.py: every planted
# copy scores 0.48 or more, no pair of independent work more than 0.35 (two who wrote what the release spells out: 0).
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


def over_budget(seconds: float) -> str:
    """What a student over the time is told (the service's page, make grade's gradebook comment), in every language at
    once (no notebook says theirs then): the course's first language, the others in brackets."""
    said = [WORDS.say(lang, "grading.stopped_over_time", seconds=seconds) for lang in LANGUAGES]
    return f"{said[0]}（{' / '.join(said[1:])}）" if said[1:] else said[0]


# c.CourseKit.max_submission_bytes and max_submission_files: what one submission folder of the exchange's inbound/
# may hold to be collected (coursekit.inbound). Ten times a run notebook with its figures; nbgrader submit makes 3 files.
MAX_SUBMISSION_BYTES = 20 * 1024 ** 2
MAX_SUBMISSION_FILES = 200


def unsandboxed(lang: str) -> str:
    """What every grading command says, once per kernel or per run, when the sandbox is off
    (c.GradingKernelManager.sandbox), in ``lang`` (the course's)."""
    return WORDS.say(lang, "grading.unsandboxed_risk", switch="ATTN_SANDBOX=off")


def checked_threshold(value, where: str = "c.CourseKit.similarity_threshold") -> float:
    """``value`` as a threshold of similarity (a number above 0, at most 1); else a ValueError naming ``where``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= 1:
        raise ValueError(f"{where} must be a number above 0 and at most 1 (a share of two students' work), "
                         f"got {value!r}")
    return float(value)


def checked_seconds(value, where: str = "c.CourseKit.student_seconds") -> float | None:
    """``value`` as one student's grading time (a number of seconds above 0, or None: derived from the canary);
    else a ValueError naming ``where``."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
        raise ValueError(f"{where} must be a number of seconds above 0, got {value!r} (or None, its default: derived "
                         f"from the release's grading time)")
    return float(value)


def checked_timezone(value, where: str = "c.CourseKit.timezone") -> str:
    """``value`` as an IANA time zone name (``"Asia/Shanghai"``, ``"UTC"``); else a ValueError naming ``where``."""
    try:
        zoneinfo.ZoneInfo(str(value))
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        raise ValueError(f"{where} must be a time zone's name such as 'Asia/Shanghai' or 'UTC', got {value!r}") from None
    return str(value)


def _as_trait_error(check, proposal):
    try:
        return check(proposal["value"])
    except ValueError as error:
        raise TraitError(str(error)) from None


def checked_regrade_deadlines(value) -> dict:
    """``value`` as ``c.CourseKit.regrade_deadlines``: each a date and time ISO 8601 reads; else a ValueError naming it."""
    for assignment, moment in dict(value).items():
        try:
            datetime.datetime.fromisoformat(str(moment))
        except ValueError:
            raise ValueError(f"c.CourseKit.regrade_deadlines[{assignment!r}]: {moment!r} is not a date and time such "
                             f"as '2027-01-22 23:59:00+08:00'") from None
    return dict(value)


class CourseKit(Configurable):
    """The course toolkit's settings (``c.CourseKit`` in ``nbgrader_config.py``)."""

    assignments = Dict(help="{assignment id: {'plugin': 'module', 'grader': '…/grader/__init__.py'}}: what each "
                            "assignment adds to plain nbgrader; an assignment not named here is graded as nbgrader "
                            "grades it. An edition in another language adds 'edition_of' (the assignment it was "
                            "written from) and 'language'.").tag(config=True)
    language = Unicode(DEFAULT, help="The language of the instructor's tools (make grade, make report, the "
                                     "marking page): 'zh' or 'en'. Students read their notebook's language whatever "
                                     "this says.").tag(config=True)
    similarity_threshold = Float(SIMILARITY_THRESHOLD, help="The class report flags two students whose work scores "
                                 "at least this alike (0 to 1: the share of their own work they have in common and "
                                 "few classmates have). A reason to look, not proof.").tag(config=True)
    max_submission_bytes = Integer(MAX_SUBMISSION_BYTES, min=1, help="A submission folder in the exchange's inbound/ "
                                   "holding more bytes than this is refused, never collected (the sizes its files "
                                   "claim, measured before copying).").tag(config=True)
    max_submission_files = Integer(MAX_SUBMISSION_FILES, min=1, help="A submission folder in the exchange's inbound/ "
                                   "holding more files and folders than this is refused, never collected.").tag(config=True)
    student_seconds = Float(STUDENT_SECONDS, allow_none=True, help="The time one student's submission may take to "
                            "grade, in seconds, in make grade and in the grading service alike: past it, that student "
                            "scores 0 with the reason and the class goes on. None (the default): 30 times the untouched "
                            "release's grading time as make grade's workers measure it, at least three cell timeouts "
                            "(c.Execute.timeout).").tag(config=True)
    regrade_deadlines = Dict(help="{assignment id: 'YYYY-MM-DD HH:MM[:SS][+zone]'} (ISO 8601; no zone = UTC): until "
                             "when students may ask for a regrade of a written answer or a test cell from their "
                             "feedback page. An assignment not named here (nor its master, for an edition) takes none."
                             ).tag(config=True)
    timezone = Unicode("UTC", help="The course's time zone (an IANA name such as 'Asia/Shanghai'): a date an "
                       "instructor types without a zone (make due, make extend, the marking page) is in it, and the "
                       "instructor's tools show dates in it. Students see dates in their own browser's zone.").tag(config=True)

    @validate("language")
    def _known_language(self, proposal):
        return _as_trait_error(lambda value: checked(value, "c.CourseKit.language"), proposal)

    @validate("similarity_threshold")
    def _a_share(self, proposal):
        return _as_trait_error(checked_threshold, proposal)

    @validate("student_seconds")
    def _a_time(self, proposal):
        return _as_trait_error(checked_seconds, proposal)

    @validate("timezone")
    def _known_zone(self, proposal):
        return _as_trait_error(checked_timezone, proposal)

    @validate("regrade_deadlines")
    def _moments(self, proposal):
        return _as_trait_error(checked_regrade_deadlines, proposal)


class GradingService(Configurable):
    """The grading service's policy (``c.GradingService``; its decisions: :mod:`coursekit.service.policy`)."""

    assignments = List(Unicode(), help="The assignments graded automatically; [] switches the service off.").tag(config=True)
    cooldown = Float(0.0, help="Seconds between two automatic feedbacks of one student (0: none).").tag(config=True)
    max_attempts = Integer(0, help="Automatic feedbacks per student and assignment (0: no limit).").tag(config=True)
    hold_after_due = Bool(False, help="No automatic feedback after a student's due date (their extension "
                          "counted): the instructor releases it.").tag(config=True)
    workers = Integer(1, help="Students graded at the same time.").tag(config=True)
    poll_seconds = Float(0.5, help="How often the exchange is asked.").tag(config=True)
    retry_seconds = Tuple(Float(), Float(), default_value=(5.0, 60.0), help="After a fault of the machine: the first "
                          "wait, in seconds, doubling up to the second.").tag(config=True)
    # settings that moved, each with where it went: refused with that advice
    MOVED = {"job_timeout": "job_timeout is now c.CourseKit.student_seconds: one student's time, for make grade and "
                            "the service alike",
             "deadlines": "deadlines is now the assignment's due date, one for every surface (make due DUE=…, or the "
                          "Formgrader), with each student's extension; c.GradingService.hold_after_due = True holds "
                          "feedback back after it"}

    @validate("cooldown")
    def _cooldown(self, proposal):
        return self._at_least(proposal, 0, "cooldown must be >= 0 seconds")

    @validate("max_attempts")
    def _attempts(self, proposal):
        return self._at_least(proposal, 0, "max_attempts must be >= 0 (0: no limit)")

    @validate("workers")
    def _workers(self, proposal):
        return self._at_least(proposal, 1, "workers must be >= 1")

    @validate("poll_seconds")
    def _poll(self, proposal):
        if not proposal["value"] > 0:
            raise TraitError(f"c.GradingService.poll_seconds must be > 0, got {proposal['value']:g}")
        return proposal["value"]

    @validate("retry_seconds")
    def _retry(self, proposal):
        first, longest = proposal["value"]
        if not 0 < first <= longest:
            raise TraitError(f"c.GradingService.retry_seconds must be 0 < first <= longest, got {proposal['value']!r}")
        return proposal["value"]

    @staticmethod
    def _at_least(proposal, low, message):
        if proposal["value"] < low:
            raise TraitError(f"c.GradingService.{message}, got {proposal['value']:g}")
        return proposal["value"]


class CourseConfigError(ValueError):
    """A course setting refused: the file and the key are named, with what was expected."""


def checked_settings(course, cls, config=None):
    """``cls`` (a Configurable) made from ``course``'s config (``config``, or :func:`course_config`'s), every value
    checked by its traits: a wrong one, or a name ``cls`` does not know, is a :class:`CourseConfigError` naming the
    file and the key."""
    config = course_config(course) if config is None else config
    where = pathlib.Path(course).resolve() / CONFIG_FILE
    section = config[cls.__name__] if cls.__name__ in config else {}
    known = set(cls.class_trait_names(config=True))
    moved = getattr(cls, "MOVED", {})
    for key in sorted(set(section) - known):
        why = moved.get(key) or f"unknown setting {key}; known: {', '.join(sorted(known))}"
        raise CourseConfigError(f"{where}: c.{cls.__name__}: {why}")
    try:
        return cls(config=config)
    except TraitError as error:
        said = str(error)
        if not said.startswith("c."):  # traitlets' own words: "The 'x' trait of a C instance expected …"
            found = re.match(r"The '(\w+)' trait of an? \w+ instance (.*)", said, re.S)
            said = f"c.{cls.__name__}.{found[1]} {found[2]}" if found else f"c.{cls.__name__}: {said}"
        raise CourseConfigError(f"{where}: {said}") from None


@dataclass(frozen=True)
class CourseSettings:
    """The course as every command sees it: its config, read once, and the values checked from it."""
    course_id: str
    db_url: str     # "" when the config names no gradebook
    exchange: str   # "" when the config names no exchange root
    sandbox: bool = True  # grading kernels run in the sandbox (GradingKernelManager.sandbox, else ATTN_SANDBOX)
    language: str = DEFAULT  # what the instructor's tools speak (c.CourseKit.language): report, marking page, make grade
    similarity_threshold: float = SIMILARITY_THRESHOLD  # c.CourseKit.similarity_threshold: from it, a pair is flagged
    student_seconds: float | None = STUDENT_SECONDS  # c.CourseKit.student_seconds; None: derived (coursekit.canary)
    timezone: str = "UTC"  # c.CourseKit.timezone: dates typed without a zone, and the instructor's tools' dates
    config: Config = None  # the whole of nbgrader_config.py, for what reads a class of its own (assignments, plug-ins)


def switched_on(variable: str) -> bool:
    """A grading switch from the environment: on unless ``variable`` says off (or 0, false, no)."""
    return os.environ.get(variable, "on").strip().lower() not in ("off", "0", "false", "no")


def sandbox_default() -> bool:
    """On unless the environment says ``ATTN_SANDBOX=off``."""
    return switched_on(SANDBOX)


@functools.lru_cache(maxsize=8)
def _load(config_file: pathlib.Path, version: tuple):  # version: (mtime_ns, size), so an edit counts
    return PyFileConfigLoader(config_file.name, path=str(config_file.parent)).load_config()


def course_config(course) -> Config:
    """The loaded ``<course>/nbgrader_config.py`` (read again once it changed); an empty Config when there is none."""
    config_file = pathlib.Path(course).resolve() / CONFIG_FILE
    if not config_file.is_file():
        return Config()
    stat = config_file.stat()
    return _load(config_file, (stat.st_mtime_ns, stat.st_size))


def course_settings(course) -> CourseSettings:
    """What ``<course>/nbgrader_config.py`` sets (defaults where it is silent or absent), checked once."""
    config = course_config(course)
    kit = checked_settings(course, CourseKit, config)
    directory, exchange = config.get("CourseDirectory", {}), config.get("Exchange", {})
    kernel = config.get("GradingKernelManager", {})
    return CourseSettings(str(directory.get("course_id", DEFAULT_COURSE_ID)), str(directory.get("db_url", "")),
                          str(exchange.get("root", "")), bool(kernel.get("sandbox", sandbox_default())),
                          kit.language, kit.similarity_threshold, kit.student_seconds, kit.timezone, config)
