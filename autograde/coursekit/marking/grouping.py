"""Answers that can be judged once: identical ones (a group), near-identical ones (a proposed group).

Input: ``{student: answer text}`` for one question. Output: :class:`Group` s, largest first,
the unanswered group (empty or the release stub) at the top.

* **identical** — the same :func:`~.normalise.normalise` key (whitespace, punctuation, widths);
* **near-identical** — character 3-grams of the keys, Jaccard similarity ≥ :data:`NEAR`. Character
  n-grams need no word segmentation, which Chinese text lacks, and a copied answer with a few
  words changed keeps most of its 3-grams. Clustering is *leader* clustering: keys are taken
  largest exact group first, and each joins the first leader it resembles, else leads a new
  group. Every member resembles its leader itself, so a chain A≈B≈C never pulls A and C together.

Groups are proposals: the page shows every variant of a group, the marker judges it once or
splits an answer out (``split``: students who stand alone whatever their text).
"""
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from .normalise import is_unanswered, normalise

__all__ = ["NEAR", "NGRAM", "Group", "ngrams", "similarity", "group_answers", "split_by_judgement"]

NGRAM = 3
NEAR = 0.7  # copied answers with a word or two changed score 0.75–0.95; different answers to one question < 0.5


@dataclass
class Group:
    kind: str                                     # "unanswered" | "identical" | "near" | "single"
    keys: list                                    # normalised texts, the leader's first
    members: dict = field(default_factory=dict)   # {key: [students]} in ``keys`` order

    @property
    def students(self) -> list:
        return [s for key in self.keys for s in self.members[key]]

    @property
    def size(self) -> int:
        return sum(len(v) for v in self.members.values())


def ngrams(key: str, n: int = NGRAM) -> frozenset:
    """The character n-grams of a normalised text (the text itself when shorter than ``n``)."""
    return frozenset(key[i:i + n] for i in range(len(key) - n + 1)) if len(key) >= n else frozenset([key])


def similarity(a: frozenset, b: frozenset) -> float:
    """Jaccard similarity of two n-gram sets, 0…1."""
    return len(a & b) / len(a | b) if a or b else 1.0


def _leaders(keys: list, near: float) -> dict:
    """{leader key: [member keys]} by leader clustering; ``keys`` in priority order."""
    grams = {key: ngrams(key) for key in keys}
    index = defaultdict(set)          # n-gram -> leaders holding it (candidates share an n-gram)
    clusters = {}
    for key in keys:
        candidates = Counter(leader for gram in grams[key] for leader in index[gram])
        best = None
        for leader, _ in candidates.most_common():
            if similarity(grams[key], grams[leader]) >= near:
                best = leader
                break
        if best is None:
            clusters[key] = [key]
            for gram in grams[key]:
                index[gram].add(key)
        else:
            clusters[best].append(key)
    return clusters


def group_answers(answers: dict, stub: str, split=(), near: float = NEAR) -> list:
    """Groups of ``answers`` ({student: text}): unanswered first, then largest first.

    A student in ``split`` stands alone, right after the group their answer would have joined.
    """
    by_key, blank = defaultdict(list), []
    for student in sorted(answers):
        (blank if is_unanswered(answers[student], stub) else by_key[normalise(answers[student])]).append(student)
    groups = []
    order = sorted(by_key, key=lambda k: (-len(by_key[k]), by_key[k][0]))
    for leader, keys in _leaders(order, near).items():
        kind = "near" if len(keys) > 1 else "identical" if len(by_key[leader]) > 1 else "single"
        groups.append(Group(kind, keys, {k: by_key[k] for k in keys}))
    groups.sort(key=lambda g: (-g.size, g.students[0]))
    if blank:
        groups.insert(0, Group("unanswered", [""], {"": blank}))
    return _pull_out(groups, set(split) & set(answers))


def _pull_out(groups: list, split: set) -> list:
    result = []
    for group in groups:
        alone = [s for s in group.students if s in split]
        if not alone or group.size == 1:
            result.append(group)
            continue
        members = {k: [s for s in v if s not in split] for k, v in group.members.items()}
        keys = [k for k in group.keys if members[k]]
        result.append(_regrouped(group.kind, {k: members[k] for k in keys}))
        for student in alone:
            key = next(k for k, v in group.members.items() if student in v)
            result.append(_regrouped(group.kind, {key: [student]}))
    return result


def _regrouped(kind: str, members: dict) -> Group:
    """A part of a group of ``kind``: still unanswered, else near/identical/single by what is left."""
    if kind != "unanswered":
        kind = "near" if len(members) > 1 else "identical" if sum(map(len, members.values())) > 1 else "single"
    return Group(kind, list(members), members)


def split_by_judgement(groups: list, judgement_of) -> list:
    """``groups`` with each one cut where its members' saved judgements differ.

    ``judgement_of(student)`` is hashable (score and comment). A group judged once has one
    judgement; a member another marker (or the formgrader) judged differently, or an answer that
    arrived after the group was judged, then shows as its own group instead of being hidden in one.
    """
    result = []
    for group in groups:
        parts = defaultdict(list)
        for student in group.students:
            parts[judgement_of(student)].append(student)
        if len(parts) == 1:
            result.append(group)
            continue
        for students in parts.values():
            chosen = set(students)
            members = {k: [s for s in group.members[k] if s in chosen] for k in group.keys}
            result.append(_regrouped(group.kind, {k: v for k, v in members.items() if v}))
    return result
