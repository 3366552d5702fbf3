"""Does every command see the one gradebook ``DB_URL`` names: make grade, make report, the service, the formgrader's
API and ``nbgrader export``?

The rule (coursekit/gradebook.py): ``DB_URL`` when set, else the course config's ``CourseDirectory.db_url``,
else nbgrader's sqlite default. The course's ``nbgrader_config.py`` applies the same rule to nbgrader's own
commands, so here nothing names PostgreSQL but the environment: a real PostgreSQL 15 server started by the
test. Three students are graded by two ``make grade`` shards at the same time (one of them a notebook that is not
JSON, scored 0), a fourth by the grading service as it arrives; every command then reads the same four rows, and
no sqlite gradebook appears anywhere.
"""
import concurrent.futures
import csv
import subprocess
import sys

import pytest
from nbgrader.apps.api import NbGraderAPI
from nbgrader.coursedir import CourseDirectory
from traitlets.config.loader import PyFileConfigLoader

from coursekit.gradebook import resolve_gradebook
from coursekit.grading.selection import parse_shard
from coursekit.language import WORDS
from coursekit.sandbox import missing_tool
from coursekit.settings import course_settings
from support import grade_output
from support import service_tools as st
from support.classes import make_grade, submit, table_rows
from support.course_tools import ASSIGNMENT, POINTS, gradebook_scores, released, run_nbgrader
from support.mistakes import BY_NAME, submission
from support.postgres_server import postgres_server

BY_HAND, ON_SUBMIT = ["ok_dot", "bug_mask_multiplied", "c_invalid_json"], "bug_no_scale"
SHARDS = ("0/2", "1/2")


def expected(student) -> float:
    return sum(next(row[2] for row in table_rows([student])))


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """A course whose only word of PostgreSQL is DB_URL: generated and released, two students by make grade, one
    by the service; (course, env, url)."""
    if missing_tool():
        pytest.skip(missing_tool())
    root = tmp_path_factory.mktemp("db-url")
    with postgres_server() as pg:
        sc = st.service_course(root, env_extra={"DB_URL": pg.url})
        submit(sc.course, table_rows(BY_HAND))
        shards = {s: [x for x in BY_HAND if parse_shard(s).holds(x)] for s in SHARDS}
        assert all(shards.values()), shards  # both shards have work, or the two writers prove nothing
        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            runs = list(pool.map(lambda s: make_grade(sc.course, sc.env, "--shard", s, "--workers", "1"), SHARDS))
        for shard, run in zip(SHARDS, runs):
            assert grade_output.header(count=len(shards[shard])) in run.stdout, (run.stdout + run.stderr)[-3000:]
        with st.running_service(sc, "service-db-url"):
            sent = st.submit(sc, ON_SUBMIT, submission(released(sc.course), *BY_NAME[ON_SUBMIT].code))
            st.wait_for(lambda: st.fetchable(sc, sent), 120, "the service's feedback")
        yield sc.course, sc.env, pg.url


def test_does_make_grade_and_the_service_write_into_the_named_gradebook(graded):
    course, env, url = graded
    for student in (*BY_HAND, ON_SUBMIT):
        assert gradebook_scores(course, student, resolve_gradebook(course, url))["total"] == pytest.approx(expected(student))
    assert not (course / "gradebook.db").exists()


def test_does_make_report_read_it(graded):
    course, env, _ = graded
    done = subprocess.run([sys.executable, "-m", "coursekit.report"], cwd=course, env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    said = WORDS.template(course_settings(course).language, "report.command.summary").split("{missing}")[0]  # the course's language
    assert said.format(assignment=ASSIGNMENT, students=4, graded=3, not_graded=1) in done.stderr, done.stderr[-2000:]
    assert "postgresql" in done.stderr


def test_does_the_formgraders_api_read_it(graded, monkeypatch):
    """nbgrader's own API (what the formgrader's pages call), set up from the course's config as nbgrader does?"""
    course, env, _ = graded
    monkeypatch.setenv("DB_URL", env["DB_URL"])
    config = PyFileConfigLoader("nbgrader_config.py", path=str(course)).load_config()
    api = NbGraderAPI(CourseDirectory(config=config), config=config)
    assert api.coursedir.db_url.startswith("postgresql")
    scores = {s["student"]: s["score"] for s in api.get_submissions(ASSIGNMENT)}
    assert scores == pytest.approx({s: expected(s) for s in (*BY_HAND, ON_SUBMIT)})


def test_does_nbgrader_export_read_it(graded, tmp_path):
    course, env, _ = graded
    out = tmp_path / "grades.csv"
    done = run_nbgrader("export", "--to", str(out), cwd=course, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    with out.open(encoding="utf-8") as fh:
        rows = {r["student_id"]: float(r["score"]) for r in csv.DictReader(fh)}
    assert rows == pytest.approx({s: expected(s) for s in (*BY_HAND, ON_SUBMIT)})
    assert set(POINTS) and not (course / "gradebook.db").exists()
