"""Does every page and output a person meets say only what the catalogue says? Each is rendered in the
pseudo-locale (qps: every message bracketed and accented), and the walk (support/pseudo.py) finds no word outside
a message but the data it shows (students, names, what students wrote).

The unit tier's pages and outputs: the class report (index.html with every section, a pair's page), make report's
lines, the marking page as the server sends it and its board's words. The marking page as its scripts draw it:
tests/integration/test_marking_page.py (Chromium).
"""
import io
import pathlib
import re
from types import SimpleNamespace

import pytest

from coursekit.language import PSEUDO, WORDS, pseudo
from support.pseudo import left_over, stray_in_html


def test_does_the_walk_find_a_word_no_message_said():
    """The walk itself: a bracketed message (a value inside it too) passes; a word beside it, or in a label, is found;
    data named as data passes?"""
    said = WORDS.say(PSEUDO, "report.page.missing", n=1)
    assert left_over(f"{said} 3 / 4 (12%)") == []
    assert left_over(f"{said} total") == ["total"] and left_over(f"{said}：未提交") == list("未提交")
    assert left_over("alice · 实验题 1", data=("alice", "实验题 1")) == []
    page = (f"<html lang='qps'><body><h1>{said}</h1><p title='Open'>{said}</p><a lang='zh-CN'>中文</a>"
            "<kbd>Enter</kbd><td class='message'>学生写的</td><p>stray</p></body></html>")
    assert stray_in_html(page, {"message"}) == [("<p title>", "Open"), ("p", "stray")]


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    from attnkit.reteach import reteach
    from coursekit.grades import read_class
    from coursekit.report.tables import build_report
    from support.synthetic_class import ASSIGNMENT, small_class

    course, progress = tmp_path_factory.mktemp("class"), io.StringIO()
    built = build_report(course, read_class(small_class(course), ASSIGNMENT), progress,
                         lambda bug: reteach(bug, PSEUDO), lang=PSEUDO)
    built.progress_lines = progress.getvalue().splitlines()  # what make report printed while it read
    return built


def _data(report) -> set:
    """What the report shows as it is: students, ids, the records' words (quoted in the student's language)."""
    rows = report.rows
    found = {r.student for r in rows} | {r.reason for r in rows if r.reason} | {report.grades.assignment}
    found |= {c.name for c in report.grades.cells} | {m.bug for m in report.mistakes} | {m.stage for m in report.mistakes}
    found |= {c.test for c in report.checks} | {c.id for c in report.checks} | {c.description for c in report.checks}
    found |= {reason for *_, reason in report.flagged if reason}
    return {str(value) for value in found if value} | {"ch04_attention", "UTC", "TEST", "verify"}


def _extra_sections(lang: str):
    from coursekit.report import lateness, regrade_counts, similarity_page
    from coursekit.report.labels import Labels
    from coursekit.report.similarity import CODE_UNIT

    labels = Labels(lang)
    match = SimpleNamespace(unit=CODE_UNIT, score=0.6, cells=[])
    pair = SimpleNamespace(first="s1", second="s2", score=0.7, flagged=True, matches=[match])
    below = SimpleNamespace(first="s3", second="s4", score=0.3, flagged=False, matches=[])
    similarity = SimpleNamespace(problem="", threshold=0.42, limit=3, students=4, flagged=[pair], pairs=[pair, below],
                                 unreadable=["s5"], work={})
    late = {"due": "2026-12-01T15:59:00Z", "due_text": "2026-12-01 23:59 (UTC+08:00)",
            "extensions": [{"student": "s1", "until_text": "2026-12-03", "reason": "ill", "granted_by": "ta",
                            "granted_at": "2026-12-01"}],
            "late": [{"student": "s2", "assignment": "ch04_attention", "submitted": "2026-12-02", "due": "2026-12-01",
                      "raw": 4.0, "penalty": 1.0, "score": 3.0, "max_score": 10.0}]}
    counts = {"q_think1_scale": {"filed": 2, "open": 1, "changed": 1, "kept": 0}}
    return [lateness.section(late, lang), lateness.section({"due": None, "extensions": [], "late": []}, lang),
            similarity_page.section(similarity, {}, lang, labels), regrade_counts.section(counts, labels, lang),
            regrade_counts.section({}, labels, lang)], similarity, labels


def test_does_the_class_report_say_only_the_catalogues_words(report):
    """index.html in the pseudo-locale, every section there is (lateness, similarity, regrade requests included)?"""
    from coursekit.report.html_page import render

    extra, _, labels = _extra_sections(PSEUDO)
    page = render(report, PSEUDO, extra, labels)
    data = _data(report) | {"s1", "s2", "s3", "s4", "s5", "ill", "ta", "q_think1_scale", "similarity", "pair"}
    assert stray_in_html(page, {"message"}, data) == []


def test_does_a_pair_page_say_only_the_catalogues_words(tmp_path):
    from coursekit.report.similarity_page import write_pages

    _, similarity, labels = _extra_sections(PSEUDO)
    [path] = write_pages(similarity, {}, tmp_path, PSEUDO, labels)
    assert stray_in_html(path.read_text(encoding="utf-8"), (), {"s1", "s2", "index", "html"}) == []


def test_does_make_report_say_only_the_catalogues_words(report):
    """make report's summary, its progress line and the regrade line, in the pseudo-locale?"""
    from coursekit.report import command, regrade_counts
    from coursekit.report.labels import Labels

    _, similarity, labels = _extra_sections(PSEUDO)
    lines = command._summary_lines(report, similarity, pathlib.Path("/reports/r"), PSEUDO, labels)
    lines.append(regrade_counts.summary_line({"q_think1_scale": {"filed": 2, "open": 1, "changed": 1, "kept": 0}},
                                             Labels(PSEUDO), PSEUDO))
    lines += report.progress_lines
    data = _data(report) | {"reports", "index", "html", "q_think1_scale"}
    assert [(line, left_over(line, data)) for line in lines if left_over(line, data)] == []


def test_does_the_marking_page_as_sent_say_only_the_catalogues_words():
    """The page's HTML as the server fills it (headings, labels, the keyboard help, the rubric file's example): all
    from the catalogue, but the key names, the rubric's own keys and the link to each language, named in its own?"""
    from coursekit.marking.handlers import page_html, page_words

    page = page_html(PSEUDO, {"board": {}}, "/static", "1", {"assignment": "ch04_attention"})
    assert "{{" not in page
    # the link to each language is named in that language (locale.name), the pseudo-locale's as English's
    assert stray_in_html(page, {"#languages"}) == []
    words = page_words(PSEUDO)
    assert words["marking.unmarked"] == pseudo(WORDS.template("en", "marking.unmarked"))
    assert words["locale.list_separator"] == WORDS.say("en", "locale.list_separator")  # a setting: never pseudo


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_is_the_marking_page_in_each_language_filled_whole(lang):
    from coursekit.marking.handlers import page_html

    page = page_html(lang, {}, "/static", "1", {})
    assert "{{" not in page and f'<html lang="{WORDS.say(lang, "locale.html_lang")}">' in page
    assert f"<title>{WORDS.say(lang, 'marking.page.title')}</title>" in page


def test_does_make_grade_with_nothing_collected_say_only_the_catalogues_words(tmp_path):
    """make grade's line when nothing was collected (the commands to collect named inside it), in the pseudo-locale?"""
    from coursekit.grading.run import nothing_collected

    said = nothing_collected(tmp_path, ["ch04_attention", "ch04_attention_en"], PSEUDO)
    assert said.startswith("⟦") and left_over(said, ("ch04_attention_en", "ch04_attention")) == []


class _Stop(Exception):
    """Raised where make grade would begin grading: the header and its warnings are said by then."""


def test_does_make_grade_without_the_sandbox_say_only_the_catalogues_words(capsys, tmp_path, monkeypatch):
    """make grade with ATTN_SANDBOX=off, in the pseudo-locale: its header and the warning before anyone is graded,
    the switch's name aside?"""
    from types import SimpleNamespace

    from coursekit.grading import run
    from coursekit.grading.selection import parse_shard
    from coursekit.settings import CourseSettings

    def stop(*args, **kwargs):
        raise _Stop
    monkeypatch.setattr(run.lock, "exclusive", stop)
    settings = CourseSettings("c", "", "", sandbox=False, language=PSEUDO)
    with pytest.raises(_Stop):
        run._grade_assignment(tmp_path, "a1", ["s1"], "sqlite:///gradebook.db", SimpleNamespace(workers=2),
                              parse_shard(""), settings, [])
    lines = capsys.readouterr().out.splitlines()
    data = ("ATTN_SANDBOX=off", "a1", "sqlite:///gradebook.db", str(tmp_path / run.LOGS))
    assert len(lines) == 2 and [(line, left_over(line, data)) for line in lines if left_over(line, data)] == []


def _refusals() -> list:
    """Every refusal the marking page's API (400) and make due / make extend can say, each made by the code that
    refuses (a bad judgement, decision, date, rubric tick count)."""
    from coursekit import due
    from coursekit.language import Refusal, marked
    from coursekit.marking import judging, requests, rubric

    def refused(call, *args):
        try:
            call(*args)
        except Refusal as refusal:
            return refusal
        raise AssertionError(f"{call.__name__}{args!r} was not refused")
    bodies = [[], {"students": []}, {"students": ["s1"], "ticks": [1]}, {"students": ["s1"], "question": 3}]
    decisions = [{"ids": []}, {"ids": ["r1"], "comment": "x" * 3000}, {"ids": ["r1"], "score": "1"}]
    found = [refused(judging.parse_request, body) for body in bodies]
    found += [refused(requests.decide, None, "a1", body, "ta", {}) for body in decisions]
    found += [refused(due.parse_when, "next friday", "UTC")]
    two = rubric.Rubric("q1", (SimpleNamespace(share=1), SimpleNamespace(share=1)))
    found += [refused(rubric.score_of, two, [True], 1.0)]
    request = judging.parse_request({"question": "q1", "students": ["s1"], "ticks": [True]})
    found += [refused(judging._score, request, None, 1.0)]
    request = judging.parse_request({"question": "q1", "students": ["s1"], "score": 5})
    found += [refused(judging._score, request, None, 1.0)]
    found += [Refusal(marked(msgid), **values) for msgid, values in (
        ("refused.split", {}), ("refused.extension", {}),
        ("refused.answer_by_score", {}), ("dates.refused_no_due_date", {"assignment": "a1"}),
        ("dates.refused_not_released", {"assignment": "a1"}),
        ("dates.refused_not_a_student", {"student": "s9", "count": 2, "known": "s1, s2"}),
        ("dates.refused_not_after", {"until": "2027-01-14 15:59 (UTC+00:00)", "assignment": "a1",
                                     "due": "2027-01-15 15:59 (UTC+00:00)"}))]
    return found


@pytest.mark.parametrize("refusal", _refusals(), ids=lambda refusal: refusal.msgid)
def test_is_each_refusal_of_the_marking_api_and_make_extend_said_from_the_catalogue(refusal):
    """Each refusal in the pseudo-locale: nothing but its values left over; in Chinese, Chinese; its str() the
    English (logs)?"""
    data = {text for value in refusal.values.values() for text in (str(value), repr(value))}
    assert left_over(refusal.said(PSEUDO), data) == []
    assert re.search(r"[\u3400-\u9fff]", refusal.said("zh")) and str(refusal) == refusal.said("en")


def _faults_of_the_machine(course: pathlib.Path, monkeypatch) -> list:
    """Every fault line make grade and the grading service can print that is cheap to cause here, each made by the
    code that decides it (coursekit.faults, make grade's checks, workers killed, a class failing alike), with the
    values it was given."""
    import errno

    import sqlalchemy.exc
    from nbclient.exceptions import DeadKernelError

    from coursekit.faults import TemplateDidNotStart, evident_fault, grader_unreadable
    from coursekit.grading import run
    from coursekit.grading.progress import StudentResult
    from coursekit.sandbox import bubblewrap

    inside = str(course / "autograded")
    errors = [sqlalchemy.exc.OperationalError("SELECT 1", {}, Exception("refused")), TemplateDidNotStart("exit 1"),
              *(OSError(number, "said", inside) for number in (errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES,
                                                               errno.EPERM))]
    found = [evident_fault(error, course) for error in errors]
    found.append(evident_fault(DeadKernelError("died"), course, template_died=True))
    grader = course / "grader"
    found.append(grader_unreadable(grader, True))
    grader.mkdir()
    (grader / "checks.py").write_text("x = 1\n")
    (grader / "checks.py").chmod(0o200)
    found += [grader_unreadable(grader, privileged) for privileged in (True, False)]
    found += [run._killed([(1, None, code)], busy) for code in (-9, 1) for busy in ({}, {1: "s7"})]
    alike = [StudentResult(s, False, f"{s} scored 0: KeyError: 'grade_id'") for s in ("s1", "s2", "s3")]
    found.append(run.class_wide_failure(alike, 30, "a1"))
    monkeypatch.setattr(bubblewrap.shutil, "which", lambda name: None)  # no bubblewrap on this machine
    with pytest.raises(run.InfrastructureFault) as no_sandbox:
        run.preflight(course, "a1", True, PSEUDO)
    monkeypatch.setattr(bubblewrap, "python_paths", lambda folders=(): ["/tmp/env/lib/python3/site-packages"])
    private = bubblewrap.private_python((), PSEUDO)
    return [*found, no_sandbox.value, run.InfrastructureFault("fault.said", "fault.fix_grade_again", said=private)]


def test_does_every_fault_line_of_make_grade_say_only_the_catalogues_words(tmp_path, monkeypatch):
    """Each fault of the machine or the course in the pseudo-locale, as make grade's summary prints it: nothing but its
    values (paths, ids, an error's own text) outside the catalogue's messages; in Chinese, Chinese?"""
    from coursekit.grading.progress import Progress

    faults = _faults_of_the_machine(tmp_path, monkeypatch)
    assert len(faults) == 18 and all(faults)
    for fault in faults:
        line = Progress(1, lang=PSEUDO).summary(fault).splitlines()[-2]
        data = {text for value in fault.values.values() for text in (str(value), str(-value) if isinstance(
            value, int) else "")} - {""}
        assert line.startswith("make grade: ⟦") and left_over(line, ("make grade", *data)) == [], line
        assert re.search(r"[\u3400-\u9fff]", fault.said("zh")) and fault.said("zh") != str(fault)


def test_does_the_grading_service_say_the_machines_faults_only_in_the_catalogues_words(tmp_path, monkeypatch):
    """The grading service of a course in the pseudo-locale: a worker that cannot grade, a job a fault stopped, a
    grading process killed, an exchange it cannot read, and no bubblewrap at its start: each line of its log (the time
    and the student aside) and each cause its journal keeps for make service-status from the catalogue?"""
    from coursekit.faults import InfrastructureFault
    from coursekit.grading.pool import Faulted
    from coursekit.service import command
    from coursekit.service.inbox import InboxUnreadable
    from coursekit.service.journal import Journal
    from coursekit.service.log import ServiceLog
    from coursekit.service.policy import Policy
    from coursekit.service.scheduler import Scheduler

    course, key, stamp = tmp_path / "course", ("a1", "s1"), "2026-12-01 10:00:00.000000 UTC"
    course.mkdir()
    log = ServiceLog(course / "grading-logs" / "service.log", echo=False)
    job = SimpleNamespace(key=key, timestamp=stamp)
    pool = SimpleNamespace(holding=[job], finished=lambda index: None, dead=lambda: [(0, job, -9)])
    scheduler = Scheduler(course, Policy(("a1",)), tmp_path / "exchange", "c1", Journal(course / "journal.json"),
                          pool, log, lang=PSEUDO)
    fault = InfrastructureFault("fault.gradebook_unreachable", "fault.fix_gradebook", error="refused")
    scheduler.handle(Faulted(0, None, fault))   # a worker that cannot grade: the whole service waits
    scheduler.handle(Faulted(0, job, fault))    # one job stopped by it
    scheduler.running[key] = SimpleNamespace(job=job, result=None, started=scheduler.monotonic(), worker=0)
    scheduler.watch()                           # its process killed meanwhile

    def unreadable(assignments):
        raise InboxUnreadable("service.exchange_unlisted", error="HTTP 502")
    scheduler.inbox = SimpleNamespace(newest=unreadable, secret=None)
    scheduler.poll()
    causes = [scheduler.journal.machine["cause"], scheduler.journal.entry(key).waiting["cause"]]
    (course / "nbgrader_config.py").write_text(f"c = get_config()  # noqa: F821\nc.CourseKit.language = {PSEUDO!r}\n")
    monkeypatch.setattr("coursekit.sandbox.bubblewrap.shutil.which", lambda name: None)
    assert command.run(course) == 2
    lines = [line.split("  ", 1)[-1].removeprefix("a1  s1  ") for line in log.path.read_text().splitlines()]
    assert len(lines) >= 5 and all(left_over(line, ("refused", "HTTP 502", "ATTN_SANDBOX=off")) == [] for line in
                                   [*lines, *causes]), lines


def _rubric_faults(course: pathlib.Path) -> list:
    """What the marking API's 500 says of a broken rubric (each made by coursekit.marking.rubric reading a broken
    file), and its 404 for an unknown question."""
    from coursekit.marking.board import unknown_question
    from coursekit.marking.rubric import RubricError, load_rubrics, rubric_file

    broken = ["[q_a\n", "[[q_a.points]]\nshare = 1.0\n", "[[q_a.points]]\ntext = 'x'\n",
              "[[q_a.points]]\ntext = 'x'\nshare = 0.5\n", "[[q_z.points]]\ntext = 'x'\nshare = 1.0\n",
              "[q_a]\n", "[[q_a.points]]\ntext = 'x'\nshare = 1.0\nterms = 'v'\n",
              "[[q_a.points]]\ntext = 'x'\nshare = 1.0\npatterns = ['(v']\n",
              "[[q_a.points]]\ntext = 'x'\nshare = 1.0\npatterns = ['(?i)v']\n",
              "[[q_a.points]]\ntext = 'x'\nshare = 1.0\npatterns = ['v?']\n",
              "".join(f"[[q_a.points]]\ntext = '{n}'\nshare = 0.1\n" for n in range(10))]
    found, path = [], rubric_file(course, "a1")
    path.parent.mkdir(parents=True, exist_ok=True)
    for text in broken:
        path.write_text(text, encoding="utf-8")
        with pytest.raises(RubricError) as error:
            load_rubrics(course, "a1", ("q_a", "q_b"))
        found.append(error.value)
    questions = [SimpleNamespace(grade_id="q_a"), SimpleNamespace(grade_id="q_b")]
    return found + [unknown_question("a1", "q_nope", questions), unknown_question("a1", "q_nope", [])]


def test_does_the_marking_api_say_a_broken_rubric_and_an_unknown_question_only_in_the_catalogues_words(tmp_path):
    """Each rubric fault (the marking page's 500, inside its line saying the course's rubric is what to fix) and the
    404 of an unknown question, in the pseudo-locale: nothing but the file, the entry and the values left over?"""
    said = _rubric_faults(tmp_path)
    assert len({error.msgid for error in said}) == 13
    for error in said:
        line = WORDS.say(PSEUDO, "marking.rubric_fault", error=error.said(PSEUDO))
        data = {text for value in error.values.values() for text in (str(value), repr(value))}
        assert left_over(line, data) == [], line
        assert re.search(r"[\u3400-\u9fff]", error.said("zh")) and str(error) == error.said("en")
