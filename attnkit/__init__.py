"""attnkit: the Lab04 self-attention chapter's helper package.

Modules, one concept each (imports flow downward):

* :mod:`attnkit.language`  - which language attnkit prints and draws in (``use_language("en")``, once per
  notebook; every renderer also takes ``lang=``)
* :mod:`attnkit.glossary`  - the chapter's terms in both languages (the chapter and the diagnosis use them)
* :mod:`attnkit.edition`   - one master, two editions: the chapter in English from the master's metadata
* :mod:`attnkit.errors`    - ``ShapeError``, the one exception type
* :mod:`attnkit.masks`     - the additive causal mask (0 keep, -1e9 block)
* :mod:`attnkit.attention` - idiomatic single-head attention (scores, mask, softmax)
* :mod:`attnkit.naive`     - the same with explicit loops (teaching, benchmarks, oracle)
* :mod:`attnkit.multihead` - multi-head attention as in the C framework
* :mod:`attnkit.lab`       - the lab contract: reference and stub student functions
* :mod:`attnkit.verify`    - the port of the lab's ``verify.c`` (TEST 1-4, 22 assertions)
* :mod:`attnkit.gradecell` - what the chapter's four graded test cells show before submitting
* :mod:`attnkit.exercises` - the three practice exercises (0 points): their check cells, before and after grading
* :mod:`attnkit.sharpness` - how peaked softmax(Q Kᵀ) gets vs head_dim (the explorer's numbers)
* :mod:`attnkit.timing`    - loops vs vectorised, measured on this machine (scores; the heads of multi-head)
* :mod:`attnkit.cost`      - how attention's time and memory grow with seq_len (T²), measured here
* :mod:`attnkit.static`    - under nbgrader: is it grading? the demo figures' PNG cache
* :mod:`attnkit.png`       - RGB pixels → PNG bytes, fast (the explorer's frames)
* :mod:`attnkit.describe`  - every figure in words and numbers, from its data (its text alternative)
* :mod:`attnkit.diagnose`  - which of scores → mask → softmax deviates first, and the likely bug
  (with :mod:`attnkit.probes`, :mod:`attnkit.bugs`, :mod:`attnkit.safecall`, and
  :mod:`attnkit.troubleshooting`: §4.10's rows by verify's FAIL lines); the package
  attribute ``attnkit.diagnose`` is the function, so import the module's other names with
  ``from attnkit.diagnose import ...``

Imported explicitly, never by ``import attnkit`` (they pull in matplotlib / anywidget):
:mod:`attnkit.plotting` (heatmaps, pipeline, per-head grid), :mod:`attnkit.sharpness_plot`
(the explorer's figure as a PNG, under grading), :mod:`attnkit.widgets` (``sharpness_explorer()``,
computed and drawn in the browser by ``attnkit/assets/``),
:mod:`attnkit.diagnose_plot` (the |student − reference| heatmap of the first deviating stage; under
grading :mod:`attnkit.deviation` shows it as an HTML table),
:mod:`attnkit.figures` (the chapter's demo figures: live, or a cached PNG under nbgrader).

The chapter's side of the course toolkit, imported by the grading processes and the instructor's tools only:
:mod:`attnkit.course` (the chapter's plug-in: ``c.CourseKit.assignments``), :mod:`attnkit.figure_cache` (its
figures drawn once before grading), :mod:`attnkit.guard` (the delegation probe a graded call runs under),
:mod:`attnkit.reteach` (what to reteach for each mistake the diagnosis names) and
:mod:`attnkit.mistake_names` (what each is called, for the class report).
"""
import os as _os

if _os.environ.get("ATTNKIT_GRADING_CALL"):
    # Set by the course's grader only while a student function runs: a process that function
    # started must not use the reference implementation in its place.
    # Every language: such a process has no notebook to ask which one.
    from .language import WORDS as _WORDS
    raise ImportError(" / ".join(_WORDS.every("guard.child_import").values()))

from . import glossary, gradecell, lab, language, naive, sharpness, timing, verify
from .attention import add_mask, attention, attention_scores, default_scale, softmax
from .diagnose import Finding, diagnose, format_findings
from .errors import ShapeError
from .language import use_language
from .masks import MASK_VALUE, create_causal_mask
from .multihead import MultiHeadAttention

__all__ = [
    "use_language", "language", "glossary",
    "ShapeError", "MASK_VALUE", "create_causal_mask",
    "attention_scores", "add_mask", "softmax", "attention", "default_scale",
    "MultiHeadAttention", "gradecell", "lab", "naive", "verify", "sharpness", "timing",
    "diagnose", "Finding", "format_findings",
]
