"""The marking page's suggestions: how many answers a TA marks by hand before Enter can do the rest, one run.

Run: .venv/bin/python benchmarks/bench_marking.py [--students 300] [--smoke]

For each written question of the chapter and each language, a class of ``--students`` answers with known truth is
made from the reviewer's table (tests/support/reviewer_answers.py: right answers in a student's own words, near
misses, negations, inverted claims, right facts with wrong conclusions; each answer one or two of them, as
students word them). A simulated TA marks, by hand and rightly, the group of identical answers the page asks for
first, until the page's suggestions (what Enter saves) agree with the truth on 95 % of the answers left
(tests/support/marking_simulation.py). Printed side by side, per language (the mean over the 8 questions):

* marking everything by hand: every answer, or every group of identical answers once;
* the page: the similarity of coursekit.marking.neighbours (the report's fingerprints, negations apart), Enter
  from coursekit.marking.suggestions.ENTER_CONFIDENCE, the page's order of asking;
* the same, the TA marking down the list (largest group first) instead of what the page asks;
* two other measures in the page's place, each with the Enter threshold calibrated for it the same way: the
  class report's fingerprints as they are (character 5-grams of the normalised text, Jaccard, no negation read:
  coursekit.report.fingerprints) and the page's near-identical groups' character 3-grams.

Then the calibration: for each confidence band, how often a suggestion of the nearest marked answers agreed with
the truth, on runs of ``--steps`` marks where every suggestion was offered to Enter; the lowest band from which
every band agrees 95 % of the time or more is where Enter may start (what ENTER_CONFIDENCE is set from).

``--smoke`` (what tests/unit/test_bench_marking.py runs): 40 students, one question per language, the page only.
"""
import pathlib
import statistics
import sys
import time

import numpy as np

REPO = pathlib.Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "tests"), str(REPO / "autograde"), str(REPO / "benchmarks")]  # benchcli: imported too
import benchcli  # noqa: E402
from coursekit.marking.grouping import ngrams  # noqa: E402
from coursekit.marking.neighbours import Space  # noqa: E402
from coursekit.marking.normalise import normalise  # noqa: E402
from coursekit.marking.rubric import load_rubrics  # noqa: E402
from coursekit.marking.suggestions import ENTER_CONFIDENCE  # noqa: E402
from coursekit.paths import COURSE  # noqa: E402
from coursekit.report.fingerprints import K_TEXT, normalised  # noqa: E402
from support.editions import ASSIGNMENTS, EDITIONS  # noqa: E402
from support.marking_simulation import simulate  # noqa: E402
from support.reviewer_answers import make_class  # noqa: E402

BAND = 0.05
AGREE = 0.95


class JaccardSpace(Space):
    """Another measure in the page's place: Jaccard of the sets ``grams_of`` gives (the page's own code otherwise)."""
    grams_of = None

    def __init__(self, texts: dict):
        sets = [self.grams_of(texts[key]) for key in texts]
        self.keys, self.texts, self.index = list(texts), texts, {key: i for i, key in enumerate(texts)}
        self._jaccard = np.array([[len(a & b) / len(a | b) if a | b else 1.0 for b in sets] for a in sets])


class FingerprintSpace(JaccardSpace):
    """The class report's fingerprints as they are: character 5-grams of the normalised text, no negation read."""
    grams_of = staticmethod(lambda text: (lambda form: {form[i:i + K_TEXT] for i in range(len(form) - K_TEXT + 1)}
                                          or {form})(normalised(text)[0]))


class GroupingSpace(JaccardSpace):
    """The page's near-identical groups' measure: character 3-grams of the normalised text (coursekit.marking.grouping)."""
    grams_of = staticmethod(lambda text: ngrams(normalise(text)))


MEASURES = {"the page": Space, "the report's fingerprints": FingerprintSpace, "the grouping's 3-grams": GroupingSpace}


def calibration(classes, space_of, steps: int) -> tuple:
    """({band: (suggestions, agreeing)}, the lowest band from which all agree ≥ 95 %) on runs offering every one."""
    bands = {}
    for made, rubric in classes:
        for confidence, right in simulate(made, rubric, space_of=space_of, enter_confidence=0.0,
                                          max_steps=steps).entered:
            band = round(min(confidence, 1.0) // BAND * BAND, 2)
            seen, agreed = bands.get(band, (0, 0))
            bands[band] = (seen + 1, agreed + right)
    start = 1.0
    for band in sorted(bands, reverse=True):
        if bands[band][1] < AGREE * bands[band][0]:
            break
        start = band
    return bands, start


def marked(classes, **options) -> dict:
    """The means over ``classes`` of one way of marking: answers and judgements by hand, whether 95 % was reached."""
    runs = [simulate(made, rubric, **options) for made, rubric in classes]
    agreed = [right for run in runs for _, right in run.entered]
    return {"answers": statistics.mean(r.by_hand for r in runs), "judgements": statistics.mean(r.judgements for r in runs),
            "reached": sum(r.reached for r in runs), "runs": len(runs),
            "precision": sum(agreed) / len(agreed) if agreed else float("nan")}


def _line(name: str, found: dict, students: int, groups: float) -> str:
    return (f"  {name:42} {found['answers']:6.1f} answers ({found['answers'] / students:4.0%})  "
            f"{found['judgements']:6.1f} judgements ({found['judgements'] / groups:4.0%} of the groups)  "
            f"Enter right {found['precision']:.1%}  reached 95 % in {found['reached']}/{found['runs']}")


def main(argv=None) -> dict:
    parser = benchcli.parser(__doc__, {"students": 40, "steps": 15})  # and one question per language, the page only
    parser.add_argument("--students", type=int, default=300, help="answers to each question")
    parser.add_argument("--steps", type=int, default=80, help="marks by hand per calibration run")
    args = benchcli.parse(parser, argv)
    students = args.students
    measures = {"the page": Space} if args.smoke else MEASURES
    figures = {}
    for lang in EDITIONS:
        rubrics = load_rubrics(COURSE, ASSIGNMENTS[lang]).by_question
        questions = sorted(rubrics)[:1] if args.smoke else sorted(rubrics)
        classes = [(make_class(q, lang, rubrics[q], students), rubrics[q]) for q in questions]
        groups = statistics.mean(len({normalised(t)[0] for t in made.texts.values()}) for made, _ in classes)
        started = time.monotonic()
        print(f"{lang}: {len(questions)} question(s), {students} answers each, {groups:.1f} groups of identical "
              f"answers on average", flush=True)
        print(f"  {'everything by hand':42} {students:6.1f} answers (100%)  {groups:6.1f} judgements (100% of the groups)")
        found = {"the page": marked(classes, enter_confidence=ENTER_CONFIDENCE)}
        print(_line(f"the page (Enter from {ENTER_CONFIDENCE:g})", found["the page"], students, groups), flush=True)
        if not args.smoke:
            found["down the list"] = marked(classes, asked=False)
            print(_line("the page, the TA marking down the list", found["down the list"], students, groups), flush=True)
        for name, space_of in measures.items():
            bands, start = calibration(classes, space_of, args.steps)
            found[f"{name}: calibrated"] = {"bands": bands, "start": start}
            if name != "the page":
                found[name] = marked(classes, space_of=space_of, enter_confidence=start)
                print(_line(f"{name} (Enter from {start:g}, calibrated)", found[name], students, groups), flush=True)
            shown = "  ".join(f"{b:.2f}: {a / n:.0%} of {n}" for b, (n, a) in sorted(bands.items()) if b >= 0.5)
            print(f"    calibration of {name}: Enter may start at {start:g}  ({shown})", flush=True)
        print(f"  ({time.monotonic() - started:.0f} s)", flush=True)
        figures[lang] = {"groups": groups, "students": students, **found}
    return figures


if __name__ == "__main__":
    main()
