"""nbgrader settings of the Chapter 4 (self-attention) course — settings only.

Run every ``nbgrader`` command from this folder (``cd autograde``, or the hub instructor's
``~/course``). Everything the course writes stays under this folder unless you point the
exchange elsewhere. Three settings also come from the environment:

* ``ATTN_COURSE_ID``  course id (default ``attention-ch04``)
* ``ATTN_EXCHANGE``   exchange root (default ``<this folder>/exchange``)
* ``ATTN_TIMEOUT``    seconds one cell may run while validating/autograding (default 10)

What the plugged-in classes do is documented in ``coursekit/plugins/``, ``coursekit/kernel/``
and ``coursekit/exchange.py`` (installed with the project). Command-line flags (e.g.
``--Exchange.root=/srv/exchange``) still override these.
"""
import os

from nbconvert.preprocessors import CoalesceStreamsPreprocessor, CSSHTMLHeaderPreprocessor
from nbgrader.converters import Autograde, GenerateAssignment

from coursekit import environ, exchange, gradebook, kernel, late, plugins, stubs
from coursekit.paths import grader_of

HERE = os.path.dirname(os.path.abspath(__file__))
GRADER = str(grader_of(HERE))  # the chapter's grader: loaded by the grader processes only
c = get_config()  # noqa: F821 -- injected by traitlets when nbgrader loads this file

c.CourseDirectory.root = HERE
c.CourseDirectory.course_id = os.environ.get(environ.COURSE_ID, "attention-ch04")
# The language of the instructor's tools (make grade's summary, make report, the marking page): "zh" or "en".
# Students read their own edition's language whatever this says.
c.CourseKit.language = "zh"
c.Exchange.root = os.environ.get(environ.EXCHANGE, os.path.join(HERE, "exchange"))
# The gradebook, one rule for every command (coursekit/gradebook.py): DB_URL when set, else the line below if you
# name one here, else nbgrader's default sqlite:///<this folder>/gradebook.db.
# c.CourseDirectory.db_url = "postgresql+psycopg://grader@db.example/ch04"
if gradebook.url_from_environment():
    c.CourseDirectory.db_url = gradebook.url_from_environment()

# A student's infinite loop is interrupted after this long; the cell scores 0 and the
# remaining cells still run (nbgrader's Execute interrupts on timeout by default). 10 s: the
# slowest cell of a correct pure-Python-loops submission takes ~0.15 s (autograde/README.md).
c.Execute.timeout = int(os.environ.get(environ.TIMEOUT, "10"))
# After a cell's reply, nbclient waits this long for the rest of its output before it calls the cell timed
# out (its default, 4 s, is too short for a cell that prints 300 progress lines on a busy machine).
c.Execute.iopub_timeout = c.Execute.timeout

# Every grading kernel is a cell runner forked from a pre-imported template in the sandbox (coursekit/sandbox/;
# ATTN_SANDBOX=off only where the machine itself is the sandbox). nbgrader's own Execute drives it, for autograde
# and validate alike: kernel.grade_with names the kernel manager (c.Execute.kernel_manager_class) and nbclient's hooks,
# which grade each test cell just before it runs, in the notebook's language (coursekit/kernel/execute.py).
kernel.grade_with(c)
# What each assignment adds to plain nbgrader (coursekit/assignments.py): the chapter's plug-in (what its kernels
# preload, its figures, its delegation probe) and its grader, which runs in a process of its own beside each
# kernel and grades each test cell just before the cell runs, in the notebook's language. An assignment not named
# here is graded as nbgrader grades it, in the same sandbox.
# The chapter comes in two editions, each an assignment of its own (a student hands in one): the English one is
# written from the Chinese master by `make release` and names it, with its language, for the tools that show both.
c.CourseKit.assignments = {
    "ch04_attention": {"plugin": "attnkit.course", "grader": GRADER},
    "ch04_attention_en": {"plugin": "attnkit.course", "grader": GRADER, "edition_of": "ch04_attention", "language": "en"},
}
# What one sandboxed kernel may use (sizes like 2G, 512M); a function that goes over scores 0 with the reason.
c.GradingKernelManager.memory = "2G"      # address space of each process
c.GradingKernelManager.processes = "64"   # processes and threads
c.GradingKernelManager.scratch = "64M"    # its private copy of the submission folder
c.GradingKernelManager.tmp = "64M"        # its /tmp
c.GradingKernelManager.file_size = "32M"  # the largest file it may write

# Release stubs per assignment: the chapter's plug-in chooses its own (in the edition's language; its input checks
# stay outside the solution region, so verify shows the lab's baseline); any other assignment gets nbgrader's. What
# the plug-in keeps private in the master's metadata (each cell's English, reference answers included) is cleared.
c.GenerateAssignment.preprocessors = plugins.with_private_metadata_cleared(stubs.with_assignment_stubs(
    GenerateAssignment.class_traits()["preprocessors"].default()))

# A student who deletes a test cell gets it back at autograding time.
c.OverwriteCells.add_missing_cells = True

# Feedback in the chapter's words: each graded cell named by its heading, unmarked written answers shown as
# pending (待批改) and counted in the log, without hidden regions or the grader's records (nbgrader#917); each
# line verify prints arrives as its own stream output: merged, a cell shows one block.
c.GenerateFeedback.exporter_class = plugins.CourseFeedbackExporter
c.GenerateFeedback.preprocessors = [plugins.GetGradesForFeedback, plugins.ClearHiddenTestsInFeedback,
                                    CoalesceStreamsPreprocessor, CSSHTMLHeaderPreprocessor]
c.CoalesceStreamsPreprocessor.enabled = True  # nbconvert's preprocessors start disabled
# Every HTML page of a student's notebook (nbgrader's formgrader, the feedback page) sanitised after rendering: one
# allow-list (coursekit/sanitise.py), no script, no link, no class, style or id from the student, formulas as MathML.
plugins.sanitised(c)
# release_feedback as nbgrader's, then how many answers the released pages still show as pending
c.ExchangeFactory.release_feedback = plugins.ReleaseFeedbackTellingPending
# Students write the exchange's inbound/: collect and list --inbound take a folder only through coursekit.inbound (no
# link followed, no pipe opened, sizes capped before copying, the owner the student its name claims; a refused folder
# is logged and never collected). What one folder may hold (defaults: 20 MB, 200 files and folders):
c.ExchangeFactory.collect = exchange.CheckedCollect
c.ExchangeFactory.list = exchange.CheckedList
# c.CourseKit.max_submission_bytes = 20 * 1024 ** 2
# c.CourseKit.max_submission_files = 200
# nbgrader's own switch: off where every student's files share one Unix user (a shared volume on Kubernetes)
# c.ExchangeCollect.check_owner = False

# Submissions that cannot be graded: 0 with a reason, the class goes on. Only a test cell a student
# really changed is reported (not the hidden region the release never had, nbgrader#1961).
c.Autograde.sanitize_preprocessors = plugins.with_release_check(plugins.with_rejected_duplicates(
    Autograde.class_traits()["sanitize_preprocessors"].default()))
c.Autograde.exporter_class = plugins.ZeroOnFailureExporter
# nbconvert checks the whole notebook against nbformat's schema after every preprocessor (a dozen times per
# student, ≈ 0.05 CPU s); once, after the last one and before it is written, refuses the same notebooks.
c.Exporter.optimistic_validation = True

# What grading keeps of a cell's outputs (autograde and validate; the live chapter is unaffected):
# beyond these bytes an output is cut where it overflowed, with a note in the notebook's language saying how much
# was left out. Scores never change: short results (scores) and errors are always kept.
c.GradingKernelManager.cell_output_limit = 300_000
c.GradingKernelManager.notebook_output_limit = 1_200_000
# The scores go into the gradebook in one transaction per notebook (nbgrader's rules, not one commit per cell).
# Before nbgrader's late penalty, the due date and the student's extension as the course keeps them (below).
c.Autograde.autograde_preprocessors = plugins.with_due_dates(plugins.with_grades_saved_at_once(
    Autograde.class_traits()["autograde_preprocessors"].default()))
# nbgrader's own LimitOutput (1000 lines per cell, after the run) would cut again, in English, and could
# drop a late stderr line that decides a test cell's score: the cap above is the only truncation.
c.LimitOutput.max_lines = -1

# Due dates and late submissions (coursekit/due.py, coursekit/late.py; autograde/README.md, "Due dates, extensions and
# the late policy"). The due date is nbgrader's, in the gradebook, one per piece of work (both editions): `make due
# DUE="2027-01-15 23:59"` or the Formgrader's Manage Assignments. Each student's extension: `make extend STUDENT=…
# UNTIL=… REASON=…` or the marking page. What a late submission loses, through nbgrader's own hook, so that nbgrader
# export, the feedback page, the report, the LMS and the Lab's notification give one grade:
c.AssignLatePenalties.plugin_class = late.LatePolicy
c.LatePolicy.penalty_method = "none"  # "none", "zero" (nbgrader's: the score is 0), "subtract", "percent"
c.LatePolicy.points_per_day = 1.0     # "subtract": points lost per day late (a day begun counts)
c.LatePolicy.percent_per_day = 10.0   # "percent": per cent of the score lost per day late …
c.LatePolicy.max_percent = 100.0      # … at most this per cent
c.LatePolicy.late_days = 0            # days late each student may spend across the term without penalty
# Dates typed without a zone (make due, make extend, the marking page) are in this one (IANA name).
c.CourseKit.timezone = "Asia/Shanghai"

# The grading service (coursekit/service/, run by the hub; autograde/README.md "The grading service"):
# each submission graded as it arrives, its feedback released to that student. Settings only:
# graded automatically (on/off per assignment: each edition of the chapter is one); [] switches the service off
c.GradingService.assignments = ["ch04_attention", "ch04_attention_en"]
c.GradingService.cooldown = 0       # seconds between two automatic feedbacks of one student (0: none)
c.GradingService.max_attempts = 0   # automatic feedbacks per student and assignment (0: no limit)
c.GradingService.hold_after_due = False  # True: after a student's due date (their extension counted), no automatic feedback
c.GradingService.workers = 1        # students graded at the same time (each one fresh kernel at a time)
c.GradingService.retry_seconds = (5, 60)  # after a fault of the machine: tried again in 5 s, doubling up to 60
