"""The class report's similarity section for a big class: through the index, against comparing pair by pair.

Run: .venv/bin/python benchmarks/bench_similarity.py [--n 300] [--padding 500]
Builds a synthetic graded class of N students in a temporary directory (tests/support/written_answers.py:
a real gradebook, the master as source, no release/ so the release is made from it; each student's
written answers, nearly half of them copied or reformatted from eight classmates'; each student's three functions a random
choice among the mistake table's solutions, tests/support/mistakes.py), every notebook padded with
``--padding`` kB of figure output as real autograded notebooks carry. Then, from one run, side by side:
  * the section as ``make report`` makes it (coursekit.report.similarity): every notebook read, every student
    fingerprinted once, every unit compared through the inverted index; then its section, pages and CSV;
    and within it, the scoring of every pair of every unit through the index;
  * the same scores from the same fingerprints, every pair compared one by one in Python (checked equal);
  * copydetect's own way, its ``compare_files`` on every pair of students' code (code only);
and the import of copydetect in a fresh process (``make report`` pays it once). Machine noise shows in
every figure: compare rows of one run. Nothing is written outside the temporary directory.
"""
import itertools
import json
import pathlib
import random
import subprocess
import sys
import tempfile
import time

REPO = pathlib.Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "tests"), str(REPO / "autograde")]
import benchcli  # noqa: E402
from coursekit.paths import ASSIGNMENT  # noqa: E402
from coursekit.report import similarity as sim  # noqa: E402
from coursekit.report.csv_files import write_similarity_csv  # noqa: E402
from coursekit.report.similarity_page import section, write_pages  # noqa: E402
from coursekit.settings import SIMILARITY_THRESHOLD  # noqa: E402
from support import mistakes  # noqa: E402
from support.course_tools import index_of  # noqa: E402
from support.written_answers import write_written_class  # noqa: E402


def type_code(course: pathlib.Path, students: list, seed: int = 3) -> None:
    """Each student's three solution cells: a random solution of the mistake table for each function."""
    rng, release = random.Random(seed), mistakes.release()
    for student in students:
        typed = mistakes.submission(release, rng.choice(list(mistakes.SCORES)), rng.choice(list(mistakes.MASK)),
                                    rng.choice(list(mistakes.SOFTMAX)))
        path = course / "autograded" / student / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
        nb = json.loads(path.read_text(encoding="utf-8"))
        for role in mistakes.ROLES:
            where = next(i for i, c in enumerate(nb["cells"]) if c["metadata"].get("nbgrader", {}).get("grade_id") == role)
            nb["cells"][where]["source"] = typed.cells[index_of(typed, role)].source
        path.write_text(json.dumps(nb, ensure_ascii=False), encoding="utf-8")


def timed(what, *args):
    start = time.perf_counter()
    result = what(*args)
    return result, time.perf_counter() - start


def the_section(course, students):
    found = sim.find_similar(course, ASSIGNMENT, students, SIMILARITY_THRESHOLD)
    out = course / "reports" / ASSIGNMENT
    section(found, {}, "zh")
    write_pages(found, {}, out, "zh")
    write_similarity_csv(found, {}, out)
    return found


def held_by_unit(found, course) -> dict:
    """{unit: {student: Prints}}: what both ways of comparing start from (fingerprinted again here)."""
    units = sim.unit_fingerprints(found, sim.read_release(course, ASSIGNMENT))[0]
    return {unit: {s: sim.joined(own.values()) for s, own in cells.items()} for unit, cells in units.items()}


def through_the_index(units: dict, limit: int) -> dict:
    return {unit: sim.unit_scores(held, limit)[0] for unit, held in units.items()}


def pair_by_pair(units: dict, limit: int) -> dict:
    """The index's scores, every pair of every unit compared one by one in Python."""
    scores = {}
    for unit, held in units.items():
        holders = {}
        for prints in held.values():
            for h in prints.work:
                holders[h] = holders.get(h, 0) + 1
        scores[unit] = {}
        for a, b in itertools.combinations(sorted(s for s, prints in held.items() if prints.work), 2):
            shared = sum(max(0.0, min(1.0, 1 - (holders[h] - 2) / (limit - 1)))
                         for h in held[a].own & held[b].own if holders[h] <= limit)
            if shared:
                scores[unit][(a, b)] = 2 * shared / (len(held[a].work) + len(held[b].work))
    return scores


def copydetect_pairs(found):
    """copydetect's compare_files on every pair of students' code (each student's three functions as one file)."""
    from copydetect import compare_files

    from coursekit.report.fingerprints import fingerprint

    code = {s: fingerprint("\n".join(c.source for c in w.cells.values() if c.kind == "code"), "code")
            for s, w in found.work.items()}
    return [compare_files(code[a], code[b])[1] for a, b in itertools.combinations(sorted(code), 2)]


def main(n: int, padding: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        course = pathlib.Path(tmp)
        students = write_written_class(course, n, padding=padding * 1024).students
        type_code(course, students)
        size = sum(p.stat().st_size for p in course.glob("autograded/**/*.ipynb")) / 1e6
        found, whole = timed(the_section, course, students)
        units = held_by_unit(found, course)
        indexed, index = timed(through_the_index, units, found.limit)
        oracle, one_by_one = timed(pair_by_pair, units, found.limit)
        _, copydetect = timed(copydetect_pairs, found)
    imported = timed(subprocess.run, [sys.executable, "-c", "import copydetect"])[1]
    assert all(indexed[u].keys() == oracle[u].keys() and all(abs(indexed[u][p] - oracle[u][p]) < 1e-9
                                                          for p in oracle[u]) for u in oracle)  # the same scores
    print(f"{n} students ({n * (n - 1) // 2} pairs; {len(units)} units: the code, each written question), "
          f"{size:.0f} MB of autograded notebooks; {len(found.flagged)} pairs flagged")
    rows = [("the whole section, as make report makes it: read, fingerprint, compare, pages, CSV", whole, ""),
            ("  in it, every pair of every unit scored through the index", index, "1.0×"),
            ("the same scores, every pair compared one by one in Python", one_by_one, f"{one_by_one / index:.1f}×"),
            ("copydetect's compare_files on every pair (the code only)", copydetect, f"{copydetect / index:.0f}×"),
            ("import copydetect, in a fresh process (make report pays it once)", imported, "")]
    print(f"{'':<84} {'wall s':>7}")
    for name, seconds, ratio in rows:
        print(f"{name:<84} {seconds:>7.2f}  {ratio}")


if __name__ == "__main__":
    parser = benchcli.parser(__doc__, {"n": 4, "padding": 1})
    parser.add_argument("--n", type=int, default=300, help="students in the synthetic class")
    parser.add_argument("--padding", type=int, default=500, help="kB of figure output in each notebook")
    arguments = benchcli.parse(parser)
    main(arguments.n, arguments.padding)
