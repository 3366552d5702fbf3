"""The red-team table: submissions that attack grading, and what each must still score.

Each row is the untouched release with one cell of the student's own added after the set-up cell.
That cell runs only while the notebook is autograded (``NBGRADER_EXECUTION=autograde``), with
whatever rights grading gives it, and tries one thing a hostile student would: rewrite the grader,
write the gradebook, plant a file in the course, print the hidden checks or a classmate's answers,
leave a process behind, reach the network, exhaust memory, processes or disk, kill its way out,
read the instructor's home. The functions are the release's stubs, so every row must score exactly
what the untouched release scores (:data:`UNTOUCHED`), and the class must be left as it was.
:data:`LIMIT_ROWS` go over a sandbox limit inside a graded function: that cell scores 0 with the
reason, the others as usual. An honest control (:data:`CONTROL`) scores full marks.

The rows are safe to grade on a machine without a sandbox too: the kill and fork rows act only when
they run as PID 1 of a namespace of their own, and every loop is bounded. :func:`targets` makes what
the attacks aim at outside the course (a listening socket, a file in a home folder) once per process.
"""
import functools
import pathlib
import socket
import tempfile
import textwrap
from dataclasses import dataclass

from support.cases import UNTOUCHED, Case, with_cell_after, with_function
from support.mistakes import FULL, submission

SECRET = "红队-同学的秘密答案-7f3a"  # the control student's written answer: no other feedback may show it
HOME_SECRET = "红队-老师家目录里的秘密-c91e"


@dataclass(frozen=True)
class Targets:
    port: int                # a TCP port listening on 127.0.0.1 (nothing may connect to it)
    home_file: pathlib.Path  # a file in a home folder outside the course (nobody may read it)
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
    (home / ".ssh").mkdir()
    (home / ".ssh" / "id_rsa").write_text(HOME_SECRET)
    home.chmod(0o700)
    return Targets(listener.getsockname()[1], home / ".ssh" / "id_rsa", listener)


def _only_when_graded(code: str) -> str:
    return ("import os\nif os.environ.get('NBGRADER_EXECUTION') == 'autograde':\n"
            + textwrap.indent(textwrap.dedent(code).strip("\n"), "    ") + "\n")


def _course_guess() -> str:
    """What the attacks take for the course folder: the grader's parent, as ATTN_GRADER shows it."""
    return "os.path.dirname(os.path.dirname(os.environ.get('ATTN_GRADER', '/nonexistent/x/y')))"


ATTACKS = {
    "rewrite_grader": """
        try:
            with open(os.environ["ATTN_GRADER"], "a") as f:
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
    "print_hidden_checks": """
        folder = os.path.dirname(os.environ.get("ATTN_GRADER", "/nonexistent/x"))
        for name in ("checks.py", "__init__.py", "oracle.py"):
            try:
                print(open(os.path.join(folder, name)).read())
            except Exception as e:
                print("grader source:", type(e).__name__)
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
    "fill_disk": """
        block = b"x" * (1024 * 1024)
        for place in (".", "/tmp"):
            written = 0
            try:
                with open(os.path.join(place, "filler.bin"), "wb") as f:
                    for _ in range(256):  # at most 256 MB each
                        f.write(block)
                        f.flush()
                        written += 1
            except OSError as e:
                print("disk:", place, type(e).__name__)
            print("wrote MB:", place, written)
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
    "read_instructor_home": """
        for path in (HOME_FILE, os.path.expanduser("~/.ssh/id_rsa"), "/root/.ssh/id_rsa", "/etc/shadow"):
            try:
                print(path, open(path).read()[:200])
            except Exception as e:
                print("home:", type(e).__name__)
    """,
}


def _attack(name: str):
    def build(release):
        code = ATTACKS[name].replace("PORT", str(targets().port)).replace("HOME_FILE", repr(str(targets().home_file)))
        return with_cell_after(release, "setup_imports", _only_when_graded(code))
    return build


STUBS_FIRST = "scores_out_not_written"  # what the diagnosis names first for the release's stubs
REDTEAM = tuple(Case(f"red_{name}", _attack(name), UNTOUCHED, diagnosis=STUBS_FIRST) for name in ATTACKS)

# a graded function that goes over a limit: that cell (and TEST 4, which calls it too) scores 0 with the reason
_HUNGRY_SOFTMAX = "def student_softmax(out, inp):\n    hog = bytearray(8 * 1024 ** 3)\n    out[...] = 0\n"
LIMIT_ROWS = (Case("limit_memory_in_softmax", lambda r: with_function(r, "student_softmax", _HUNGRY_SOFTMAX),
                   (1.75, 1.0, 0.0, 0.0), diagnosis=STUBS_FIRST),)


def _honest(release):
    nb = submission(release)
    answer = next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "q_lab1_no_scale")
    answer.source = f"不缩放时 softmax 会变得很尖。{SECRET}"
    return nb


CONTROL = Case("red_honest_control", _honest, FULL)
ROWS = (*REDTEAM, *LIMIT_ROWS, CONTROL)
