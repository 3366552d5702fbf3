"""Which students' work is too alike to be independent: every student fingerprinted once, compared through an index.

Two kinds of unit are compared: a student's **code** (every code solution cell of the assignment's notebooks,
as one body of work) and each **written question** on its own (a markdown answer cell). For each unit:

1. Each student's cells are fingerprinted once (:mod:`.fingerprints`), statements without effect left out
   (``_ = 0`` after every line hides nothing), and every fingerprint of what the release gave is dropped (any
   code cell, the stubs and given code included; any markdown cell, the questions included): students who
   left the stub, or wrote the chapter's own lines, are not alike. That is a student's work (:class:`Prints`).
2. Of it, what the release spells out is common ground in any class size (:mod:`.statements`: a statement of
   the master's solution or of the release's code, renamed or not, or whose value the release's comments spell
   out, such as ``scale * Q @ K.T``; for written answers, the master's reference answers): it counts as work,
   never as shared. The rest is the student's own.
3. An inverted index (fingerprint → students) counts who holds each fingerprint. What more than
   :func:`common_limit` students hold is the class's common ground too (the obvious way to write a line), not
   evidence; a fingerprint held by two counts fully, by more a little less, down to nothing past the limit.
4. Every pair of students whose own parts share a fingerprint is found from the index's lists of students, in
   numpy (never pair by pair), with its score: 2·shared / (|A| + |B|), where |A| counts all of a student's
   work and shared weighs each fingerprint both hold as their own as step 3 says. So a score is the part of the
   two students' work that they have in common and few others have: 1 for two identical submissions nobody
   else resembles, 0 for two that only share the common ground.

A pair's score is its highest unit's; it is flagged at ``c.CourseKit.similarity_threshold``. A score is a
reason to look, never proof: the pair's page (:mod:`.similarity_page`) shows what they share.
"""
import math
from dataclasses import dataclass, field

import numpy as np

from .fingerprints import fingerprint, fingerprints
from .solutions import CODE, TEXT, read_release, read_work
from .statements import ground_of

__all__ = ["CODE_UNIT", "MIN_COMMON", "COMMON_SHARE", "LISTED", "Match", "Pair", "Prints", "Similarity", "joined",
           "common_limit", "unit_scores", "unit_fingerprints", "find_similar"]

CODE_UNIT = "code"      # the unit of a student's code; a written question's unit is its grade id
MIN_COMMON, COMMON_SHARE = 5, 0.10  # held by more than max(5, 10 % of the class): common ground
LISTED = 0.5            # pairs scoring at least this share of the threshold are listed (the CSV), flagged or not


@dataclass(frozen=True)
class Prints:
    """A student's fingerprints in one cell or unit (module docstring, steps 1–2)."""
    work: frozenset          # everything they wrote, junk and the release's own lines left out
    own: frozenset = None    # of it, what the release does not spell out (None: all of it)

    def __post_init__(self):
        if self.own is None:
            object.__setattr__(self, "own", self.work)

    def __or__(self, other: "Prints") -> "Prints":
        return Prints(self.work | other.work, self.own | other.own)


@dataclass(frozen=True)
class Match:
    unit: str            # CODE_UNIT, or a written question's grade id
    score: float
    cells: tuple = ()    # grade ids of the cells where the two students' shared fingerprints lie


@dataclass(frozen=True)
class Pair:
    first: str
    second: str
    score: float         # the highest of its matches'
    matches: tuple       # Match, highest first
    flagged: bool


@dataclass
class Similarity:
    assignment: str
    threshold: float
    students: int = 0                                 # students compared (with a readable submission)
    limit: int = MIN_COMMON                           # common_limit of the class
    pairs: list = field(default_factory=list)         # Pair, highest first (score ≥ LISTED · threshold)
    unreadable: list = field(default_factory=list)    # why a student's notebook was not compared
    problem: str = ""                                 # why nothing was compared ("" when it was)
    work: dict = field(default_factory=dict)          # {student: solutions.Work}
    ignored: dict = field(default_factory=dict)       # {unit: frozenset of hashes}: the release's and the common
    released: dict = field(default_factory=dict)      # {(notebook, grade_id): the cell as released}, in order
    language: str = "python"
    ground: object = None                             # statements.Ground: the code the release spells out

    @property
    def flagged(self) -> list:
        return [pair for pair in self.pairs if pair.flagged]


def common_limit(students: int) -> int:
    """How many students may hold a fingerprint before it is common ground."""
    return max(MIN_COMMON, math.ceil(COMMON_SHARE * students))


def _pairs_sharing(holders: np.ndarray, keys: np.ndarray, weights: np.ndarray, limit: int) -> tuple:
    """``(first, second, shared)``: the weight each pair of students shares, from the index's rows ``(holder, key,
    weight)`` (one per student and fingerprint, each key held by at most ``limit``). Sorted by key then student,
    a key's holders lie side by side: pairs are the rows ``step`` apart with the same key."""
    order = np.lexsort((holders, keys))
    holders, keys, weights = holders[order], keys[order], weights[order]
    firsts, seconds, shared = [], [], []
    for step in range(1, limit):
        same = keys[step:] == keys[:-step]
        firsts.append(holders[:-step][same])
        seconds.append(holders[step:][same])
        shared.append(weights[step:][same])
    first, second, weight = (np.concatenate(parts) for parts in (firsts, seconds, shared))
    span = int(holders.max(initial=0)) + 1
    pairs, where = np.unique(first * span + second, return_inverse=True)
    return pairs // span, pairs % span, np.bincount(where, weights=weight, minlength=len(pairs))


def unit_scores(held: dict, limit: int) -> tuple:
    """``({(first, second): score}, common)`` of one unit: ``held`` is {student: :class:`Prints`} (or a set of
    fingerprints: all their own), the release's dropped; ``common`` the fingerprints more than ``limit`` students
    hold."""
    held = {s: p if isinstance(p, Prints) else Prints(frozenset(p)) for s, p in held.items()}
    students = sorted(s for s, prints in held.items() if prints.work)
    if len(students) < 2:
        return {}, frozenset()
    holders = np.concatenate([np.full(len(held[s].work), i) for i, s in enumerate(students)])
    ordered = [list(held[s].work) for s in students]
    hashes = np.concatenate([np.array(hs, dtype=np.int64) for hs in ordered])
    own = np.concatenate([np.fromiter((h in held[s].own for h in hs), dtype=bool, count=len(hs))
                          for s, hs in zip(students, ordered)])
    found, keys, counts = np.unique(hashes, return_inverse=True, return_counts=True)
    held_by = counts[keys]
    weights = np.clip(1 - (held_by - 2) / (limit - 1), 0, 1)
    rare = (held_by >= 2) & (held_by <= limit) & own
    first, second, shared = _pairs_sharing(holders[rare], keys[rare], weights[rare], limit)
    sizes = np.bincount(holders, minlength=len(students))
    scores = 2 * shared / (sizes[first] + sizes[second])
    named = {(students[a], students[b]): float(s) for a, b, s in zip(first, second, scores)}
    return named, frozenset(found[counts > limit].tolist())


def _given(release) -> dict:
    """{kind: every fingerprint of what the release gave of that kind}."""
    return {kind: frozenset().union(*(fingerprint(source, kind, release.language).hashes for source in sources))
            for kind, sources in release.given.items()}


def _answers_ground(release) -> frozenset:
    """Every fingerprint of the master's reference answers (written questions' common ground)."""
    return frozenset().union(*(fingerprint(source, TEXT).hashes for source in release.solutions.get(TEXT, ())))


def _prints(cell, similarity: Similarity, released: str, given: frozenset, answers: frozenset) -> Prints:
    """One cell's :class:`Prints` (module docstring, steps 1–2)."""
    work, spelled = fingerprints(cell.source, cell.kind, similarity.language, released, similarity.ground)
    work -= given
    return Prints(work, work - (spelled if cell.kind == CODE else answers))


def unit_fingerprints(similarity: Similarity, release) -> tuple:
    """``(units, given)``: {unit: {student: {(notebook, grade_id): Prints}}}, each student's cells of
    ``similarity.work`` fingerprinted once, without the lines of the cell as released and every fingerprint of
    what the release gave, what the release spells out set apart; and {kind: those fingerprints of the release}."""
    given, units, answers = _given(release), {}, _answers_ground(release)
    if similarity.ground is None:
        similarity.ground = ground_of(release.solutions.get(CODE, ()) + release.given[CODE],
                                      [cell.source for cell in release.cells if cell.kind == CODE])
    for work in similarity.work.values():
        for key, cell in work.cells.items():
            unit = CODE_UNIT if cell.kind == CODE else cell.grade_id
            prints = _prints(cell, similarity, similarity.released[key], given[cell.kind], answers)
            units.setdefault(unit, {}).setdefault(work.student, {})[key] = prints
    return units, given


def _cells(similarity: Similarity, cells: dict, first: str, second: str, ignored: frozenset) -> tuple:
    """The cells (``(notebook, grade_id)``, in the release's order) of either student holding what the two share
    beyond ``ignored``."""
    own = [frozenset().union(*(p.own for p in cells[student].values())) for student in (first, second)]
    shared = (own[0] & own[1]) - ignored
    holding = {key for student in (first, second) for key, prints in cells[student].items() if prints.own & shared}
    return tuple(key for key in similarity.released if key in holding)


def _ranked(found: dict, units: dict, similarity: Similarity) -> list:
    """The pairs scoring at least LISTED · threshold, highest first, each with its matches and their cells."""
    pairs = []
    for (first, second), scores in found.items():
        best = max(score for _, score in scores)
        if best < LISTED * similarity.threshold:
            continue
        matches = tuple(sorted((Match(unit, score, _cells(similarity, units[unit], first, second,
                                                          similarity.ignored[unit]))
                                for unit, score in scores), key=lambda m: (-m.score, m.unit)))
        pairs.append(Pair(first, second, best, matches, best >= similarity.threshold))
    return sorted(pairs, key=lambda p: (-p.score, p.first, p.second))


def joined(prints) -> Prints:
    """The :class:`Prints` of several cells as one."""
    joined = Prints(frozenset())
    for one in prints:
        joined = joined | one
    return joined


def _compare(similarity: Similarity, release) -> None:
    units, given = unit_fingerprints(similarity, release)
    found = {}
    for unit, cells in units.items():
        held = {student: joined(own.values()) for student, own in cells.items()}
        scores, common = unit_scores(held, similarity.limit)
        spelled = given[CODE] if unit == CODE_UNIT else given[TEXT] | _answers_ground(release)
        similarity.ignored[unit] = common | spelled
        for pair, score in scores.items():
            found.setdefault(pair, []).append((unit, score))
    similarity.pairs = _ranked(found, units, similarity)


def find_similar(course, assignment: str, students, threshold: float, config=None) -> Similarity:
    """Compare the submissions of ``students`` to ``assignment`` in ``course`` (module docstring)."""
    similarity = Similarity(assignment, threshold)
    try:
        release = read_release(course, assignment, config)
    except (OSError, ValueError, RuntimeError) as error:  # RuntimeError: nbgrader's ClearSolutions on a bad source
        similarity.problem = str(error)
        return similarity
    works = [read_work(course, student, assignment, release) for student in sorted(students)]
    similarity.unreadable = [message for work in works for message in work.unreadable]
    works = [work for work in works if work.cells]
    similarity.students, similarity.limit = len(works), common_limit(len(works))
    similarity.work, similarity.language = {work.student: work for work in works}, release.language
    similarity.released = {(cell.notebook, cell.grade_id): cell.source for cell in release.cells}
    _compare(similarity, release)
    return similarity
