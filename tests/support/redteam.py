"""The red-team table: submissions that attack grading, and what each must still score.

Each row is the untouched release with one cell of the student's own added after the set-up cell.
That cell runs only while the notebook is autograded (``NBGRADER_EXECUTION=autograde``), with
whatever rights grading gives it, and tries one thing a hostile student would: rewrite the grader,
write the gradebook, plant a file in the course, print the hidden checks or a classmate's answers,
leave a process behind, reach the network, exhaust memory, processes or disk, kill its way out,
read the instructor's home or the hub's LTI private key; or, from inside a student function while the grader calls it (:data:`IN_CALLS`),
search the process for the grader, change how the test cell's result prints, patch the kernel's channel,
forge the grader's record, replace ``attnkit.gradecell``. The functions are the release's stubs, so every
row must score exactly what the untouched release scores (:data:`UNTOUCHED`), and the class must be left
as it was; the rows in :data:`TAMPERING` make the kernel show another result than the grader's, which
``make grade`` lists. :func:`revealed` finds the grader's source in what a student was shown, decoded.
:data:`LIMIT_ROWS` go over a sandbox limit inside a graded function: that cell scores 0 with the
reason, the others as usual. An honest control (:data:`CONTROL`) scores full marks.

The rows are safe to grade on a machine without a sandbox too: the kill and fork rows act only when
they run as PID 1 of a namespace of their own, and every loop is bounded. :func:`targets` makes what
the attacks aim at outside the course (a listening socket, a file in a home folder) once per process.
"""
import atexit
import base64
import codecs
import contextlib
import functools
import html
import pathlib
import re
import shutil
import socket
import tempfile
import textwrap
import zlib
from dataclasses import dataclass

from coursekit.language import LANGUAGES, WORDS
from coursekit.lms.launch import AGS_CLAIM, CLAIM, MEMBERSHIP, NRPS_CLAIM
from coursekit.paths import COURSE
from coursekit.record import MIME as RECORD_MIME
from grader import inputs
from support import replay
from support.cases import STUBS_FIRST, UNTOUCHED, Case, with_cell_after, with_function
from support.mistakes import FULL, submission

SECRET = "红队-同学的秘密答案-7f3a"  # the control student's written answer: no other feedback may show it
HOME_SECRET = "红队-老师家目录里的秘密-c91e"
TOOL_KEY_SECRET = "红队-LTI-工具私钥-5d2b"  # stands for the hub's LTI private key (autograde/hub/lti.py)


@dataclass(frozen=True)
class Targets:
    port: int                # a TCP port listening on 127.0.0.1 (nothing may connect to it)
    home_file: pathlib.Path  # a file in a home folder outside the course (nobody may read it)
    tool_key: pathlib.Path   # where a hub keeps the tool's LTI private key (its user only: nobody graded may read it)
    listener: socket.socket

    def connections(self) -> int:
        """How many connections reached the listener so far."""
        count = 0
        self.listener.setblocking(False)
        while True:
            try:
                self.listener.accept()[0].close()
            except BlockingIOError:
                return count
            count += 1


@functools.lru_cache(maxsize=None)
def targets() -> Targets:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    home = pathlib.Path(tempfile.mkdtemp(prefix="redteam-home-"))
    atexit.register(shutil.rmtree, home, True)  # the planted secrets leave with the test process that planted them
    (home / ".ssh").mkdir()
    (home / ".ssh" / "id_rsa").write_text(HOME_SECRET)
    key = home / "hub" / "lti" / "tool-key.pem"
    key.parent.mkdir(parents=True, mode=0o700)
    key.write_text(f"-----BEGIN PRIVATE KEY-----\n{TOOL_KEY_SECRET}\n-----END PRIVATE KEY-----\n")
    key.chmod(0o600)
    home.chmod(0o700)
    return Targets(listener.getsockname()[1], home / ".ssh" / "id_rsa", key, listener)


def _only_when_graded(code: str) -> str:
    return ("import os\nif os.environ.get('NBGRADER_EXECUTION') == 'autograde':\n"
            + textwrap.indent(textwrap.dedent(code).strip("\n"), "    ") + "\n")


def _course_guess() -> str:
    """What the attacks take for the course folder: the grader's parent as ATTN_GRADER would show it, or three
    folders up (nbgrader's autograded/<student>/<assignment>, unsandboxed); the first that has a grader."""
    return ("next((c for c in (os.path.dirname(os.path.dirname(os.environ.get('ATTN_GRADER', '/nonexistent/x/y'))), "
            "os.path.abspath('../../..')) if os.path.isdir(os.path.join(c, 'grader'))), '/nonexistent')")


def _grader_guesses() -> str:
    """Where the attacks look for the grader's files: where the kernel used to see them (/run/attn/grader), the
    course guessed, and the repository's own course (a student may know where the instructor keeps it)."""
    return f"['/run/attn/grader', os.path.join({_course_guess()}, 'grader'), {str(COURSE / 'grader')!r}]"


ATTACKS = {
    "rewrite_grader": f"""
        try:
            with open(os.path.join({_course_guess()}, "grader", "__init__.py"), "a") as f:
                f.write("\\ndef grade(*args):\\n    return 100.0\\n")
        except Exception as e:
            print("grader:", type(e).__name__)
    """,
    "write_gradebook": f"""
        import glob, sqlite3
        places = [os.getcwd(), {_course_guess()}]
        for place in places:
            for up in range(6):
                for path in glob.glob(os.path.join(place, *[".."] * up, "gradebook.db")):
                    try:
                        db = sqlite3.connect(path)
                        db.execute("UPDATE grade SET manual_score = 99")
                        db.commit()
                        print("gradebook written:", path)
                    except Exception as e:
                        print("gradebook:", type(e).__name__)
    """,
    "plant_file": f"""
        course = {_course_guess()}
        for folder in (os.path.join(course, "source", "ch04_attention"), os.path.join(course, "release")):
            try:
                with open(os.path.join(folder, "planted_by_student.py"), "w") as f:
                    f.write("print('planted')")
            except Exception as e:
                print("plant:", type(e).__name__)
    """,
    "print_hidden_checks": f"""
        for folder in {_grader_guesses()}:
            for name in ("checks.py", "__init__.py", "oracle.py"):
                try:
                    print(open(os.path.join(folder, name)).read())
                except Exception as e:
                    print("grader source:", type(e).__name__)
    """,
    # the same, encoded so that no line of it is printed as it is, and in pieces (issue 37)
    "print_grader_encoded": f"""
        import base64, codecs, glob, zlib
        found = [path for folder in {_grader_guesses()} for path in sorted(glob.glob(os.path.join(folder, "*.py")))]
        print("grader files found:", len(found))
        for path in found:
            try:
                text = open(path).read()
            except Exception as e:
                print("grader source:", type(e).__name__)
                continue
            print(codecs.encode(text, "rot13"))
            print(base64.b64encode(text.encode()).decode())
            print(base64.b64encode(zlib.compress(text.encode())).decode())
            for start in range(0, len(text), 7):
                print(text[start:start + 7])
    """,
    "print_classmates": f"""
        import glob
        for pattern in ("../../../submitted/*/*/*.ipynb", os.path.join({_course_guess()}, "submitted/*/*/*.ipynb")):
            for path in glob.glob(pattern)[:60]:
                try:
                    print(open(path).read())
                except Exception as e:
                    print("classmate:", type(e).__name__)
    """,
    "linger": """
        import subprocess
        subprocess.Popen(["sleep", "600"], start_new_session=True)
        if os.fork() == 0:  # a daemon: fork, new session, fork again, outlive the kernel
            os.setsid()
            if os.fork() == 0:
                import time
                time.sleep(600)
            os._exit(0)
    """,
    "network": """
        import socket
        for host, port in (("127.0.0.1", PORT), ("1.1.1.1", 80), ("8.8.8.8", 53)):
            s = socket.socket()
            s.settimeout(2)
            print("connect", host, port, s.connect_ex((host, port)))
            s.close()
    """,
    "memory_hog": """
        try:
            hog = bytearray(8 * 1024 ** 3)
            print("allocated 8 GB")
            del hog
        except MemoryError:
            print("memory: MemoryError")
    """,
    # memory in processes (issue 54): three children of 700 MB each, each far under the per-process cap, held at once
    "memory_in_children": """
        import mmap, time
        children, held = [], 0
        if os.getpid() == 1:  # only as PID 1 of a namespace of its own: a sandbox, never the grader's machine
            for _ in range(3):
                read, write = os.pipe()
                pid = os.fork()
                if pid == 0:
                    try:
                        chunks = []
                        for _ in range(4):  # memory of its own, made real at once (MADV_POPULATE_WRITE: one call)
                            chunks.append(mmap.mmap(-1, 175 * 1024 ** 2))
                            chunks[-1].madvise(23)
                            os.write(write, b"c")
                        os.write(write, b"d")
                        time.sleep(20)
                    finally:
                        os._exit(0)
                os.close(write)
                children.append((pid, read))
            said = {}
            for pid, read in children:
                said[pid] = b""
                while not said[pid].endswith(b"d") and (chunk := os.read(read, 64)):  # b"": killed
                    said[pid] += chunk
            time.sleep(0.1)  # a kill under way is done
            for pid, _ in children:
                if os.waitpid(pid, os.WNOHANG) == (0, 0):  # alive: what it holds counts
                    held += 175 * said[pid].count(b"c")
                    os.kill(pid, 9)
                    os.waitpid(pid, 0)
        print("held MB at once:", held)
    """,
    "fork_bomb": """
        import time
        children = []
        if os.getpid() == 1:  # only as PID 1 of a namespace of its own: a sandbox, never the grader's machine
            for _ in range(300):
                try:
                    pid = os.fork()
                except OSError as e:
                    print("fork:", type(e).__name__)
                    break
                if pid == 0:
                    time.sleep(20)
                    os._exit(0)
                children.append(pid)
        print("forked", len(children))
    """,
    # the dos row (issue 54): write until every disk it reaches is full, then hold it while classmates are graded
    "fill_disk": """
        import time
        places = [os.getcwd(), "/tmp", "/dev/shm", "/dev", "/var/tmp", "/run"]
        for top in ("/tmp", "/run", "/home", "/var"):  # every folder below them it may write (its kernel folder, once)
            for folder, dirs, _ in os.walk(top):
                dirs[:] = dirs if folder.count("/") < 5 else []
                places += [folder] if os.access(folder, os.W_OK) else []
        block, total = b"x" * 1024 ** 2, 0
        for place in dict.fromkeys(places):
            written = 0
            for n in range(12):  # files of 30 MB (one file may have 32 MB): at most 360 MB a folder
                try:
                    with open(os.path.join(place, f"filler-{n}.bin"), "wb") as f:
                        for _ in range(30):
                            f.write(block)
                            f.flush()
                            written += 1
                except OSError as e:
                    print("disk:", place, type(e).__name__)
                    break
            total += written
            print("wrote MB:", place, written)
        print("wrote MB in all:", total)
        time.sleep(2)
    """,
    "kill_parent": """
        import signal
        try:
            os.kill(os.getppid(), signal.SIGKILL)
        except Exception as e:
            print("kill parent:", type(e).__name__)
        print("still here")
    """,
    "kill_everything": """
        import subprocess
        if os.getpid() == 1:  # only as PID 1 of a namespace of its own (as root elsewhere it kills the machine)
            subprocess.run("kill -9 -1", shell=True)
        print("still here")
    """,
    "read_tool_key": """
        import glob
        for path in (TOOL_KEY, "/srv/attention-hub/hub/lti/tool-key.pem", *glob.glob("/var/tmp/attn-hub-*/hub/lti/*")):
            try:
                print(path, open(path).read()[:400])
            except Exception as e:
                print("tool key:", type(e).__name__)
    """,
    "read_instructor_home": """
        for path in (HOME_FILE, os.path.expanduser("~/.ssh/id_rsa"), "/root/.ssh/id_rsa", "/etc/shadow"):
            try:
                print(path, open(path).read()[:200])
            except Exception as e:
                print("home:", type(e).__name__)
    """,
}


# Attacks made from inside a student function while the grader calls it (issue 37). Each row's code defines
# ``_attn_attack()`` (and may define ``_attn_after()``, run after every cell); :data:`_WRAPPING` then wraps the
# notebook's three functions after every cell, so that each call runs ``_attn_attack()`` first.
_WRAPPING = """
import functools
def _attn_wrap(fn):
    if getattr(fn, "_attn_wrapped", False):
        return fn
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        _attn_attack()
        return fn(*args, **kwargs)
    wrapper._attn_wrapped = True
    return wrapper
def _attn_after_cell(result=None):
    ns = get_ipython().user_ns
    for name in ("student_attention_scores", "student_apply_mask", "student_softmax"):
        if callable(ns.get(name)):
            ns[name] = _attn_wrap(ns[name])
    ns.get("_attn_after", lambda: None)()
get_ipython().events.register("post_run_cell", _attn_after_cell)
"""

IN_CALLS = {
    # look through the process for the grader's checks, expected values, tolerances; after every cell, show
    # how many calls searched and what they found (rot13)
    "search_memory_in_call": """
        import codecs, gc, sys, types
        _attn_found, _attn_calls = [], [0]
        def _attn_attack():
            _attn_calls[0] += 1
            _attn_found.extend("module " + name for name in list(sys.modules)
                               if name.split(".")[0] in ("grader", "checks", "oracle"))
            for obj in gc.get_objects():  # (objects the template froze are in sys.modules' reach above)
                if isinstance(obj, types.ModuleType) and obj.__name__.split(".")[0] in ("grader", "checks", "oracle"):
                    _attn_found.append("module " + obj.__name__)
                elif isinstance(obj, types.FunctionType) and (
                        "/grader/" in obj.__code__.co_filename or obj.__name__ in ("run_checks", "evaluate", "grade")):
                    _attn_found.append("function " + obj.__code__.co_filename + ":" + obj.__name__)
                elif isinstance(obj, dict) and "HIDDEN" in obj:
                    _attn_found.append("dict " + repr(sorted(map(str, obj)))[:200])
            frame = sys._getframe(1)
            while frame is not None:
                if "/grader/" in frame.f_code.co_filename:
                    _attn_found.append("frame " + frame.f_code.co_filename + " " + repr(sorted(frame.f_locals))[:200])
                frame = frame.f_back
        def _attn_after():
            print("memory search:", _attn_calls[0], "calls,", codecs.encode(repr(sorted(set(_attn_found))), "rot13"))
    """,
    # the next result shown as a float (the test cell's score) prints as 2.0
    "float_printer_in_call": """
        def _attn_attack():
            get_ipython().display_formatter.formatters["text/plain"].for_type(float, lambda v, p, cycle: p.text("2.0"))
    """,
    # every result shown as 4.0, whatever it is
    "displayhook_in_call": """
        import sys
        def _attn_attack():
            get_ipython().displayhook.compute_format_data = lambda result: ({"text/plain": "4.0"}, {})
            sys.displayhook = lambda value: print(4.0)
    """,
    # what the kernel sends to grading: every result 4.0
    "channel_patch_in_call": """
        import sys
        def _attn_attack():
            cells = sys.modules.get("coursekit.sandbox.cells")
            if cells is not None and not getattr(cells._Outbox.put, "_attn", False):
                def put(self, kind, content, _original=cells._Outbox.put):
                    if kind == "execute_result":
                        content = dict(content, data={"text/plain": "4.0"})
                    return _original(self, kind, content)
                put._attn = True
                cells._Outbox.put = put
    """,
    # a record of full marks for every test cell, shown while graded and after every cell
    "forged_record": f"""
        from IPython.display import display
        from attnkit import gradecell
        _attn_forged = [{{{RECORD_MIME!r}: {{"schema": 1, "grade_id": t.grade_id, "test": t.number, "points": t.points,
                                            "score": float(t.points), "status": "graded", "reason": "", "checks": [],
                                            "findings": []}}, "text/plain": f"本项得分 = {{t.points}}"}}
                        for t in gradecell.TEST_CELLS]
        def _attn_attack():
            for forged in _attn_forged:
                display(forged, raw=True)
        _attn_after = _attn_attack
    """,
    # attnkit.gradecell replaced, in sys.modules and in the package: every test cell prints full marks
    "gradecell_replaced": """
        import sys, types, attnkit
        from attnkit import gradecell
        _attn_fake = types.ModuleType("attnkit.gradecell")
        _attn_points = {t.number: float(t.points) for t in gradecell.TEST_CELLS}
        def _attn_run(number, *fns, lang=None):
            print(f"[TEST {number}] 全部通过\\n本项得分 = {_attn_points[number]}")
            return _attn_points[number]
        _attn_fake.run, _attn_fake.TEST_CELLS = _attn_run, gradecell.TEST_CELLS
        def _attn_attack():
            sys.modules["attnkit.gradecell"] = attnkit.gradecell = _attn_fake
    """,
}
TAMPERING = {"float_printer_in_call", "displayhook_in_call", "channel_patch_in_call", "forged_record",
             "gradecell_replaced", "search_memory_in_call"}  # what the kernel shows in a test cell is not the grader's


def attack_cell(name: str) -> str:
    """The attack ``name`` as the student's cell: it acts only while the notebook is autograded."""
    if name in IN_CALLS:
        code = textwrap.dedent(IN_CALLS[name]) + _WRAPPING
    else:
        code = ATTACKS[name].replace("PORT", str(targets().port)).replace("HOME_FILE", repr(str(targets().home_file)))
        code = code.replace("TOOL_KEY", repr(str(targets().tool_key)))
    return _only_when_graded(code)


def _attack(name: str):
    return lambda release: with_cell_after(release, "setup_imports", attack_cell(name))


REDTEAM = tuple(Case(f"red_{name}", _attack(name), UNTOUCHED, diagnosis=STUBS_FIRST) for name in (*ATTACKS, *IN_CALLS))

# a graded function that goes over a limit: that cell (and TEST 4, which calls it too) scores 0 with the reason
_HUNGRY_SOFTMAX = "def student_softmax(out, inp):\n    hog = bytearray(8 * 1024 ** 3)\n    out[...] = 0\n"
LIMIT_ROWS = (Case("limit_memory_in_softmax", lambda r: with_function(r, "student_softmax", _HUNGRY_SOFTMAX),
                   (1.75, 1.0, 0.0, 0.0), diagnosis=STUBS_FIRST),)


# ---------- what a notebook hands grading, each scoring as the untouched release, or 0 with the reason ----------

def _replaying(release):
    """The stubs plus a table of another submission's hidden calls answered right (:mod:`support.replay`). The table
    is what the grader would ask if every submission shared one seed, :data:`grader.inputs.FIXED`: were the seeds
    ever constant again, this row would score far above the stubs."""
    table = replay.leaked_table(inputs.FIXED)
    return with_cell_after(release, "student_softmax", replay.REPLAY_CELL.format(table=table))


def _returning(value: str):
    """A softmax that returns ``value`` (its return value counts for nothing) and writes nothing: the stub's score."""
    source = f"import numpy as np\n\n\ndef student_softmax(out, inp):\n    return {value}\n"
    return lambda release: with_function(release, "student_softmax", source)


def _flooding_before_the_tests(release):
    """Five cells of 290 kB each before TEST 1: the notebook's output budget is spent before any test cell."""
    nb = release
    for n in range(5):
        nb = with_cell_after(nb, "student_softmax", f"print('{n}' * 290_000)")
    return nb


def _sleeping(release):
    """Three added cells sleeping 5 s each, every one under the cell timeout (6 s): together over the student's
    time."""
    nb = release
    for _ in range(3):
        nb = with_cell_after(nb, "setup_imports", "import time\ntime.sleep(5)")
    return nb


STUDENT_SECONDS = 14  # the graded classes' c.CourseKit.student_seconds: the sleeping row goes over it, nobody else
# make grade takes the students in name order; this one holds a worker for its whole STUDENT_SECONDS, so its name sorts
# before the other red rows: named red_sleeps_…, it came 42nd of 48 and its worker ran alone for 11 s at the end
SLEEPING = "red_asleep_past_its_time"
CONTENT_ROWS = (
    Case("red_replay_leaked_inputs", _replaying, UNTOUCHED, diagnosis=STUBS_FIRST),
    Case("red_returns_a_huge_view", _returning("np.broadcast_to(np.zeros(1), (10 ** 6, 10 ** 6))"), UNTOUCHED,
         diagnosis=STUBS_FIRST),
    Case("red_returns_32_mb", _returning("np.zeros(4 * 1024 ** 2)"), UNTOUCHED, diagnosis=STUBS_FIRST),
    Case("red_floods_before_the_tests", _flooding_before_the_tests, UNTOUCHED, diagnosis=STUBS_FIRST),
    Case(SLEEPING, _sleeping, (0.0, 0.0, 0.0, 0.0), reason=f"Grading took longer than {STUDENT_SECONDS} s"),
)


# ---------- what grading scores as it is, but the class report flags "may be hard-coded" ----------

def _answering_verify(release):
    """The stubs plus a table of verify's 22 calls answered right (:func:`support.replay.visible_table`): inputs the
    release itself shows, so no rule of grading refuses it. It scores 6.25 where the stubs score 3.5; the report and
    the marking page flag each of its cells, with the checks passed and failed (coursekit.record.may_be_hard_coded)."""
    return with_cell_after(release, "student_softmax", replay.REPLAY_CELL.format(table=replay.visible_table()))


# (row, the cells flagged): proved in-process (tests/unit/test_grader.py), as it does nothing to the machine
HARD_CODED = ((Case("red_answers_verify_only", _answering_verify, (2.5, 1.75, 1.25, 0.75), diagnosis=STUBS_FIRST),
               ("test1_scores", "test2_mask", "test3_softmax", "test4_end_to_end")),)


def _honest(release):
    nb = submission(release)
    answer = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "q_lab1_no_scale")
    answer.source = f"不缩放时 softmax 会变得很尖。{SECRET}"
    return nb


CONTROL = Case("red_honest_control", _honest, FULL)
ROWS = (*REDTEAM, *LIMIT_ROWS, *CONTENT_ROWS, CONTROL)


# ---------- finding the grader in what a student was shown, however it was encoded ----------

LONG_ENOUGH = 24  # characters: shorter lines ("return 0", "else:") are everyday code, not the grader's


def grader_lines(folder: pathlib.Path) -> set:
    """The grader's source lines worth searching for: every stripped line of its files that is long enough."""
    return {line.strip() for path in pathlib.Path(folder).glob("*.py")
            for line in path.read_text(encoding="utf-8").splitlines() if len(line.strip()) >= LONG_ENOUGH}


def revealed(text: str, lines) -> set:
    """The ``lines`` found in ``text`` as they are, in rot13, in base64 (zlib-compressed or not), or cut in pieces
    separated by newlines."""
    views = [text, codecs.decode(text, "rot13"), text.replace("\n", "")]
    for token in re.findall(r"[A-Za-z0-9+/]{40,}={0,2}", text):
        with contextlib.suppress(ValueError):
            raw = base64.b64decode(token, validate=True)
            views.append(raw.decode("utf-8", "replace"))
            with contextlib.suppress(zlib.error):
                views.append(zlib.decompress(raw).decode("utf-8", "replace"))
    return {line for line in lines if any(line in view for view in views)}


# ---------- attacks on the LMS's door (LTI 1.3 launches into the hub: tests/integration/test_hub_lti.py) ----------

@dataclass(frozen=True)
class LaunchAttack:
    """A launch posted to the hub's callback as an attacker would, and what the hub must answer.

    ``token`` names how the ``id_token`` is made from a genuine launch's claims (support.lms_platform.TestLMS) of
    ``login``: ``genuine`` as the platform signs them, ``forged`` with a key that is not the platform's, ``expired``
    backdated, ``audience`` addressed to another tool, ``replayed`` a launch already used (with the cookies it came
    with), ``deployment`` naming a deployment the hub does not serve. With ``context`` the launch comes from another
    LMS course on the same platform (:func:`launch_claims`): by ``sub`` (another person; "" keeps ``login``'s) in
    ``role`` there ("" keeps ``login``'s), its own line items and roster URLs in it. ``status`` and ``says``: the
    hub's answer, its page's message (:func:`refused_as`); nobody is logged in by any of them, and no launch of another
    course reaches the course's LMS state (tests/unit/test_lms_sync.py gives each to the LMS sync as the newest).
    """
    name: str
    token: str
    status: int
    says: str  # the message id of what the page says (the course's catalogue)
    login: str = "student1"
    context: dict | None = None
    role: str = ""
    sub: str = ""
    shows: str = ""   # a part of the page: the launch's own text, escaped
    hidden: str = ""  # what the page must not show (a library's message)


OTHER_COURSE = {"id": "course-other", "title": "Another course", "label": "OTHER"}
HOSTILE_COURSE = {"id": "<img src=x onerror=alert(1)>\u202e\n\x1b[2J", "title": "</p><script>alert(1)</script>"}
OTHER_SERVICES = "https://other-course.invalid/"  # the other course's line items and roster: never read or posted to

LAUNCH_ATTACKS = (
    # a launch failing the library's checks: our words on the page, never its message ("Signature verification failed")
    LaunchAttack("forged_signature", "forged", 400, "hub.invalid", hidden="Signature verification failed"),
    # (the library's words, "Signature has expired": ours say "may have expired" too)
    LaunchAttack("expired", "expired", 400, "hub.invalid", hidden="Signature has expired"),
    LaunchAttack("wrong_audience", "audience", 401, "hub.invalid", hidden="Audience"),
    LaunchAttack("replayed", "replayed", 400, "hub.replayed"),
    LaunchAttack("other_deployment", "deployment", 403, "hub.deployment"),
    LaunchAttack("neither_role", "genuine", 403, "hub.role", login="mentor"),
    # issue 54, 1: with one tool registration for the whole LMS, any course's instructor could add the link
    LaunchAttack("other_course_instructor", "genuine", 403, "hub.other_course_instructor", login="teacher",
                 context=OTHER_COURSE, sub="u-5001"),
    LaunchAttack("other_course_ta_hostile_title", "genuine", 403, "hub.other_course_instructor", login="teacher",
                 context=HOSTILE_COURSE, role="TeachingAssistant", sub="u-5002",
                 shows="&#x27;&lt;img src=x onerror=alert(1)&gt;\\u202e\\n\\x1b[2J&#x27;"),
    LaunchAttack("other_course_learner", "genuine", 403, "hub.other_course", context=OTHER_COURSE, sub="u-5003"),
    # issue 54, 2: the course's own instructor, whose newest launch comes from another course she teaches
    LaunchAttack("newest_instructor_launch_other_course", "genuine", 403, "hub.other_course_instructor_advice",
                 login="teacher", context=OTHER_COURSE, shows="&#x27;course-other&#x27;"),
)


def refused_as(attack: LaunchAttack, page: str) -> bool:
    """Does ``page`` refuse as ``attack`` expects: its message (``says``, an id of the course's catalogue) in every
    language of the course, escaped as shown, with ``shows`` and without ``hidden``?"""
    said = [html.escape(WORDS.template(lang, attack.says).split("{")[0]) for lang in LANGUAGES]
    return all(part in page for part in said) and attack.shows in page and (
        not attack.hidden or attack.hidden not in page)


def launch_claims(attack: LaunchAttack, claims: dict) -> dict:
    """A genuine launch's ``claims`` as ``attack`` sends them: from its other LMS course, with that course's own
    services."""
    if attack.context is None:
        return claims
    changed = {CLAIM + "context": dict(attack.context),
               AGS_CLAIM: {"lineitems": OTHER_SERVICES + "lineitems", "lineitem": OTHER_SERVICES + "lineitems/1",
                           "scope": list((claims.get(AGS_CLAIM) or {}).get("scope") or ())},
               NRPS_CLAIM: {"context_memberships_url": OTHER_SERVICES + "memberships", "service_versions": ["2.0"]}}
    if attack.role:
        changed[CLAIM + "roles"] = [f"{MEMBERSHIP}#{attack.role}"]
    return {**claims, **changed, **({"sub": attack.sub} if attack.sub else {})}
