"""Does a hostile submission score exactly what the untouched release scores, and leave the class as it was?

The red-team table (tests/support/redteam.py) is graded, whole, with everyone else by ``make grade`` (the shared
class), every kernel in the sandbox (coursekit/sandbox); its representative rows again by one serial
``nbgrader autograde`` (the serial class) and by ``make grade`` with ``ATTN_SANDBOX=off``. Each attack keeps the release's stubs, so it must score the
release's baseline; then nothing it aimed at may have changed: the grader and the course's
sources, the gradebook (only nbgrader's own writes), other students' and the grader's text
kept out of every feedback page, no process of a student left, the machine's other processes
alive, no connection to the listener it was told about, no file written outside its sandbox.
"""
import codecs
import importlib.util
import marshal
import os
import re
import shutil
import struct

import nbformat
import pytest
from nbgrader.api import Gradebook
from traitlets.config.loader import PyFileConfigLoader

from coursekit.autograded import read_graded_notebook
from coursekit.kernel import GradingKernelManager
from coursekit.language import WORDS
from coursekit.sandbox import abandoned, cgroups
from coursekit.settings import course_settings, unsandboxed as unsandboxed_warning
from support import grade_output, redteam
from support.classes import REPRESENTATIVE, SERIAL, copy_graded, digest, make_grade_target
from support.course_tools import ASSIGNMENT, GRADER_CELLS, POINTS, output_text, visible_text

CLASSES = ["shared_class", "serial_class"]
ATTACKERS = [row.name for row in redteam.REDTEAM]
ROWS = [row.name for row in redteam.ROWS]
# (class, student): the whole table in the shared class, the representative rows in the serial one
GRADED_ROWS = [("shared_class", name) for name in ROWS] + [("serial_class", name) for name in ROWS if name in SERIAL]


@pytest.fixture(params=CLASSES)
def graded(request):
    return request.getfixturevalue(request.param)


@pytest.fixture
def graded_as(request):
    """The class named by the test's parameter."""
    return request.getfixturevalue(request.param)


@pytest.mark.parametrize("graded_as, student", GRADED_ROWS, indirect=["graded_as"])
def test_does_every_row_score_exactly_as_the_table_says(graded_as, student):
    """Each attack: the untouched release's points; the limit row: 0 where it went over; the control: full?"""
    graded = graded_as
    scores = graded.scores(student)
    assert {g: scores[g] for g in POINTS} == pytest.approx(dict(zip(POINTS, graded.expected[student])), abs=1e-9)


def test_are_the_grader_and_the_course_byte_identical(graded):
    """grader/, source/, release/ and nbgrader_config.py hash as before grading; nothing was planted?"""
    assert digest(graded.course) == graded.protected
    assert not list(graded.course.rglob("planted_by_student.py"))


def test_is_the_graders_bytecode_what_its_own_files_compile_to(graded):
    """Grading writes grader/__pycache__ (the digest above leaves it out): is every .pyc there the
    compiled form of its source as it is now, so that no planted one could run in place of it?"""
    folder = graded.course / "grader"
    compiled = sorted((folder / "__pycache__").glob("*.pyc"))
    assert {p.name.split(".")[0] for p in compiled} == {p.stem for p in folder.glob("*.py")}
    for pyc in compiled:
        source = folder / f"{pyc.name.split('.')[0]}.py"
        data, stat = pyc.read_bytes(), source.stat()
        assert data[:4] == importlib.util.MAGIC_NUMBER and struct.unpack("<III", data[4:16]) == (
            0, int(stat.st_mtime) & 0xFFFFFFFF, stat.st_size & 0xFFFFFFFF), pyc.name
        assert marshal.loads(data[16:]) == compile(source.read_bytes(), str(source), "exec"), pyc.name


def test_does_the_gradebook_hold_only_nbgraders_own_writes(graded):
    """No manual score anywhere (the attack tried 99 for everyone), every auto score the table's?"""
    with Gradebook(f"sqlite:///{graded.course / 'gradebook.db'}") as gradebook:
        manual = [(s.student.id, g.name) for s in gradebook.find_assignment(ASSIGNMENT).submissions
                  for n in s.notebooks for g in n.grades if g.manual_score is not None]
    assert manual == []


def test_does_no_feedback_show_the_grader_or_another_student(graded):
    """No line of the grader's source (as it is, rot13, base64, zlib, in pieces), no classmate's answer, no file of
    a home folder in any feedback page, nor in any autograded notebook?"""
    lines = redteam.grader_lines(graded.course / "grader")
    source = (graded.course / "grader" / "checks.py").read_text(encoding="utf-8")
    assert len(lines) > 200 and len(redteam.revealed(codecs.encode(source, "rot13"), lines)) > 100  # it detects
    pages = [(p.parent.parent.name, visible_text(p.read_text(encoding="utf-8")))
             for p in (graded.course / "feedback").glob(f"*/{ASSIGNMENT}/*.html")]
    pages += [(p.parent.parent.name, p.read_text(encoding="utf-8"))
              for p in (graded.course / "autograded").glob(f"*/{ASSIGNMENT}/*.ipynb")]
    assert len(pages) > len([name for name in ATTACKERS if name in graded.expected])
    for student, text in pages:
        assert redteam.revealed(text, lines) == set(), student
        assert redteam.HOME_SECRET not in text, student
        assert redteam.TOOL_KEY_SECRET not in text, student
        if student != redteam.CONTROL.name:
            assert redteam.SECRET not in text, student


def test_did_the_attacks_find_no_grader_to_print(shared_class):
    """The kernel cannot see the grader (it lives in the grader process): the attacks that print it found no file?"""
    text = shared_class.notebook("red_print_hidden_checks").read_text(encoding="utf-8")
    assert "grader source: FileNotFoundError" in text
    assert "grader files found: 0" in shared_class.notebook("red_print_grader_encoded").read_text(encoding="utf-8")


def test_did_the_memory_search_during_the_calls_find_nothing(shared_class):
    """The search ran inside the grader's calls (some calls counted) and found no module, function, frame or table
    of the grader's?"""
    nb = nbformat.read(shared_class.notebook("red_search_memory_in_call"), as_version=4)
    said = re.findall(r"memory search: (\d+) calls, (.*)", "".join(output_text(c) for c in nb.cells if c.cell_type == "code"))
    assert said and int(said[-1][0]) > 0
    assert {codecs.decode(found, "rot13") for _, found in said} == {"[]"}


def test_are_exactly_the_tampering_rows_flagged(graded):
    """The test cells whose kernel showed another result than the grader's are noted in the notebook, for the
    tampering rows only (every one of their test cells), no other student?"""
    flagged = {}
    for path in (graded.course / "autograded").glob(f"*/{ASSIGNMENT}/*.ipynb"):
        cells = read_graded_notebook(path).tampered_cells
        if cells:
            flagged[path.parent.parent.name] = set(cells)
    assert flagged == {f"red_{name}": set(GRADER_CELLS) for name in redteam.TAMPERING if f"red_{name}" in graded.expected}
    assert flagged  # each class holds a tampering row


def test_does_make_grade_list_the_tampered_cells(shared_class):
    """make grade's summary names each tampered test cell of each tampering row?"""
    marker = grade_output.words()["tampered"].split("{")[0]
    notes = [line for line in grade_output.notes(shared_class.run.stdout) if marker in line]
    assert sorted(notes) == sorted(grade_output.note(f"red_{name}", "tampered", grade_ids=", ".join(GRADER_CELLS))
                                   for name in redteam.TAMPERING)


def test_did_nothing_reach_outside(graded_classes):
    """No connection to the listener the attack was told about; no process left under a sandbox uid that no
    grading holds (tests running beside this one may be grading right now)?"""
    assert redteam.targets().connections() == 0
    assert abandoned() == {}


def test_are_the_machines_other_processes_alive(graded_classes, bystanders):
    """The processes started before grading (the test's own, another user's) outlived every attack?"""
    assert [process.poll() for process in bystanders] == [None] * len(bystanders)


def test_was_nothing_written_into_the_students_folders(graded):
    """The filler files and the sleeping processes' traces stayed in the sandbox's private copy?"""
    for folder in ("submitted", "autograded"):
        assert not list((graded.course / folder).rglob("filler*.bin")), folder


def test_did_the_kernels_children_hold_no_more_memory_together_than_the_kernel_may(shared_class):
    """Three children of 700 MB each, far under the per-process cap: together they held at most the kernel's memory,
    where the machine has control groups (make grade's header says which), and the class was graded meanwhile?"""
    if not cgroups.describe(cgroups.find()):
        reason = "no control group this user may write: memory is capped per process only (run as root)"
        pytest.fail(reason) if os.environ.get("CI") == "true" else pytest.skip(reason)
    nb = nbformat.read(shared_class.notebook("red_memory_in_children"), as_version=4)
    said = re.findall(r"held MB at once: (\d+)", "".join(output_text(c) for c in nb.cells if c.cell_type == "code"))
    config = PyFileConfigLoader("nbgrader_config.py", path=str(shared_class.course)).load_config()
    assert said and 700 <= int(said[-1]) <= GradingKernelManager(config=config).limits().memory // 1024 ** 2
    assert grade_output.words()["capped_whole"].format(groups=cgroups.describe(cgroups.find())) in shared_class.run.stdout


def test_did_the_disk_filler_fill_only_its_own_capped_folders(shared_class):
    """The dos row wrote until nothing it could reach took more, and slept: no more than its home, /tmp and /dev/shm
    hold (a cell once wrote 255 MB into its kernel folder on the machine's /tmp, issue 54), while its classmates
    were graded as the table says (test_does_every_row_score_exactly_as_the_table_says)?"""
    nb = nbformat.read(shared_class.notebook("red_fill_disk"), as_version=4)
    said = re.findall(r"wrote MB in all: (\d+)", "".join(output_text(c) for c in nb.cells if c.cell_type == "code"))
    config = PyFileConfigLoader("nbgrader_config.py", path=str(shared_class.course)).load_config()
    limits = GradingKernelManager(config=config).limits()
    assert said and 64 < int(said[-1]) <= (limits.scratch + limits.tmp + 8 * 1024 ** 2) // 1024 ** 2


@pytest.mark.parametrize("graded_name", CLASSES)
def test_does_the_limit_row_say_why_it_scored_nothing(graded_name, request):
    """The function that went over the memory limit: TEST 3 and TEST 4 name the limit in Chinese?"""
    text = request.getfixturevalue(graded_name).notebook("limit_memory_in_softmax").read_text(encoding="utf-8")
    assert "内存超过 2 GB，本项记 0 分。" in text


def test_does_make_grade_list_the_limit(shared_class):
    """make grade's summary names the student and the limit?"""
    notes = grade_output.notes(shared_class.run.stdout, "limit_memory_in_softmax")
    assert notes and all("内存超过 2 GB" in line for line in notes)


def test_is_only_the_edited_test_cell_reported(graded):
    """nbgrader's checksum alarm: no warning for a student who did not touch a test cell (nbgrader#1961),
    one for the student who did, naming the cell?"""
    log = graded.run.stderr + graded.run.stdout
    log += "".join(p.read_text() for p in (graded.course / "grading-logs").glob("worker-*.log"))
    assert "Attribute 'checksum'" not in log
    if "edited_test_cell" in graded.expected:
        assert log.count("was changed by the student") == 1 and "Test cell test1_scores" in log


def test_does_make_grade_list_the_edited_test_cell(shared_class):
    """make grade's summary names the student who changed a test cell, and no one else?"""
    marker = grade_output.words()["changed"].split("{")[0]
    notes = [line for line in grade_output.notes(shared_class.run.stdout) if marker in line]
    assert notes == [grade_output.note("edited_test_cell", "changed", grade_id="test1_scores")]


# ---------- without the sandbox (ATTN_SANDBOX=off, a pod that is already the sandbox) ----------
# The rows that act on the machine (files, processes, the network, a sandbox limit) need the sandbox, or the pod, to
# fail: on this machine they would do what they aim at. The representative rows that need only the grader's own
# process must score the same on this path too (every mistake row, in-process: tests/unit/test_grader.py); the
# timed-out row is left out, its 10 s proving nothing the others do not.
WITHOUT_SANDBOX = [name for name in REPRESENTATIVE if name not in ("limit_memory_in_softmax", "e_infinite_loop")]


@pytest.fixture(scope="module")
def unsandboxed(shared_class, tmp_path_factory):
    """The shared class, those rows graded again by ``make grade`` with ``ATTN_SANDBOX=off``: said in its header and
    in a warning before the results."""
    graded = copy_graded(shared_class, tmp_path_factory.mktemp("unsandboxed"))
    for student in WITHOUT_SANDBOX:
        shutil.rmtree(graded.course / "autograded" / student, ignore_errors=True)
    # make grade grades the class's ungradable rows again too (their failure is listed below); not the sleeping one,
    # which only costs its 14 s budget again (stopping it is the grading parent's, the sandbox has no part in it)
    shutil.rmtree(graded.course / "submitted" / redteam.SLEEPING)
    done = make_grade_target(graded.course, dict(graded.env, ATTN_SANDBOX="off"), WORKERS=2)  # as the instructor
    failed = set(grade_output.failed(done.stdout))  # the class's ungradable ones, graded again
    lang = course_settings(graded.course).language  # the header and the warning speak the course's language
    warning = WORDS.say(lang, "grading.warning", warning=unsandboxed_warning(lang))
    assert WORDS.say(lang, "grading.unsandboxed") in done.stdout and warning in done.stdout.splitlines(), done.stdout
    assert failed and failed <= set(graded.reasons), done.stdout[-3000:]
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr  # through make: graded, the students' 0s listed
    return graded, done


@pytest.mark.parametrize("student", WITHOUT_SANDBOX)
def test_does_each_row_score_the_same_without_the_sandbox(unsandboxed, student):
    graded, done = unsandboxed
    said = grade_output.failed(done.stdout) if student in graded.reasons else grade_output.graded_ok(done.stdout)
    assert student in said, done.stdout[-3000:]
    scores = graded.scores(student)
    assert {g: scores[g] for g in POINTS} == pytest.approx(dict(zip(POINTS, graded.expected[student])), abs=1e-9)


def test_are_the_same_test_cells_listed_as_tampered_without_the_sandbox(unsandboxed):
    _, done = unsandboxed
    marker = grade_output.words()["tampered"].split("{")[0]
    notes = [line for line in grade_output.notes(done.stdout) if marker in line]
    assert sorted(notes) == sorted(grade_output.note(name, "tampered", grade_ids=", ".join(GRADER_CELLS))
                                   for name in WITHOUT_SANDBOX if name[4:] in redteam.TAMPERING)
