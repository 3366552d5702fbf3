"""Does the grading kernel's client, with a real kernel, cap each cell's output without changing any score?

One small synthetic notebook run twice by nbgrader's own ``Execute``: with a plain ipykernel (the
oracle: what nbgrader keeps without the course) and with the course's kernel (a cell runner outside
the sandbox, its output capped by coursekit.kernel.client). The bookkeeping alone:
tests/unit/test_plugins_output_cap.py.
"""
import base64

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook
from nbgrader import utils
from nbgrader.preprocessors import Execute

from traitlets.config import Config

from coursekit.kernel import GradingKernelManager
from coursekit.kernel.output_cap import GRACE

NOTE = "[评分时输出过长]"


# ---------- the preprocessor, with a real kernel ----------

PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")
CELLS = {  # name: (source, points if graded)
    "normal": ("print('hello')\nfrom IPython.display import Image, display\ndisplay(Image(data=PNG))\n1 + 1", None),
    "progress": ("from IPython.display import clear_output\nfor i in range(300):\n"
                 "    clear_output(wait=True)\n    print('#' * 200, i)", None),
    "stdout_flood": ("print('x' * 1_000_000)\nprint('[PASS] after the flood')\n0.5", 2),
    "stderr_flood": ("import sys\nsys.stderr.write('e' * 1_000_000)\nsys.stderr.flush()\n1.0", 2),
    "many_prints": ("for i in range(5_000):\n    print(i, flush=True)", None),
    "many_images": ("for _ in range(300):\n    display(Image(data=PNG))", None),
    "long_error": ("raise ValueError('y' * 1_000_000)", 1),
    "flood_then_warning": ("print('x' * 1_000_000, flush=True)\nsys.stderr.write('Warning: ' + 'w' * 100_000)\n1.0", 2),
    "late": ("print('late')", None),
}
LIMITS = {"cell_output_limit": 5_000, "notebook_output_limit": 30_000}


def synthetic_notebook():
    nb = new_notebook(metadata={"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}})
    nb.cells.append(new_code_cell(f"import base64\nPNG = base64.b64decode({base64.b64encode(PNG)!r})"))
    for name, (source, points) in CELLS.items():
        cell = new_code_cell(source, metadata={"name": name})
        if points:
            cell.metadata["nbgrader"] = {"grade": True, "solution": False, "locked": True, "grade_id": name,
                                         "points": points, "schema_version": 3}
        nb.cells.append(cell)
    return nb


@pytest.fixture(scope="module")
def runs():
    """{"plain": notebook run by nbgrader's Execute and ipykernel, "capped": the same with the course's kernel}."""
    waits = {"timeout": 60, "iopub_timeout": 30}  # a flood's last output can take seconds on busy cores
    plain, _ = Execute(**waits).preprocess(synthetic_notebook(), {})
    config = Config({"GradingKernelManager": {"sandbox": False, **LIMITS}})
    capped, _ = Execute(**waits, kernel_manager_class=GradingKernelManager, config=config).preprocess(
        synthetic_notebook(), {})
    return {run: {c.metadata.get("name"): c for c in nb.cells} for run, nb in (("plain", plain), ("capped", capped))}


def visible(cell):
    """(stream name, text) / (output type, data) as a reader sees them: consecutive stream pieces joined."""
    shown = []
    for out in cell.outputs:
        if out.output_type == "stream" and shown and shown[-1][0] == out.name:
            shown[-1] = (out.name, shown[-1][1] + out.text)
        else:
            shown.append((out.name, out.text) if out.output_type == "stream" else (out.output_type, out.get("data")))
    return shown


def stored_size(cell):
    return len(nbformat.writes(new_notebook(cells=[cell])).encode()) - len(nbformat.writes(new_notebook()).encode())


@pytest.mark.parametrize("name", [n for n, (_, points) in CELLS.items() if points])
def test_does_every_graded_cell_score_exactly_as_without_the_cap(runs, name):
    scores = [utils.determine_grade(runs[run][name])[0] for run in ("plain", "capped")]
    assert scores[0] == scores[1] == {"stdout_flood": 0.5, "stderr_flood": 0, "long_error": 0, "flood_then_warning": 0}[name]


@pytest.mark.parametrize("name", ["normal", "progress"])
def test_are_outputs_under_the_limits_unchanged(runs, name):
    assert visible(runs["capped"][name]) == visible(runs["plain"][name])
    assert NOTE not in str(runs["capped"][name].outputs)


@pytest.mark.parametrize("name", ["stdout_flood", "stderr_flood", "many_prints", "many_images", "long_error",
                                  "flood_then_warning"])
def test_does_each_flooding_cell_stay_near_the_cell_limit(runs, name):
    assert stored_size(runs["plain"][name]) > 50_000
    assert stored_size(runs["capped"][name]) < LIMITS["cell_output_limit"] + GRACE


def test_does_the_student_see_the_start_of_a_stdout_flood_then_the_note_in_stdout(runs):
    shown = visible(runs["capped"]["stdout_flood"])
    assert [kind for kind, _ in shown] == ["stdout", "execute_result", "stdout"]
    assert shown[0][1].startswith("x" * 3_000) and "[PASS] after the flood" not in shown[0][1] + shown[2][1]
    assert shown[1][1] == {"text/plain": "0.5"} and shown[2][1].startswith(f"\n{NOTE}")


def test_does_a_stderr_flood_show_its_note_in_stderr_only(runs):
    shown = visible(runs["capped"]["stderr_flood"])
    assert [kind for kind, _ in shown] == ["stderr", "execute_result", "stderr"]
    assert NOTE in shown[2][1] and NOTE not in shown[0][1]


def test_do_many_prints_and_images_end_with_one_note(runs):
    prints, images = runs["capped"]["many_prints"].outputs, runs["capped"]["many_images"].outputs
    assert visible(runs["capped"]["many_prints"])[0][1].startswith("0\n1\n2\n")
    assert [NOTE in out.get("text", "") for out in prints].count(True) == 1 and NOTE in prints[-1].text
    assert 5 < sum(out.output_type == "display_data" for out in images) < 300 and NOTE in images[-1].text


def test_is_a_long_error_kept_and_shortened(runs):
    (err,) = runs["capped"]["long_error"].outputs
    assert err.output_type == "error" and err.ename == "ValueError" and "评分时省略了" in err.evalue


def test_does_a_cell_after_the_notebook_limit_keep_only_the_note(runs):
    assert visible(runs["plain"]["late"]) == [("stdout", "late\n")]
    (note,) = runs["capped"]["late"].outputs
    assert note.name == "stdout" and note.text.startswith(f"\n{NOTE}") and "整个笔记本前 30 kB" in note.text


def test_does_a_stderr_after_the_cut_stay_visible_and_short(runs):
    shown = visible(runs["capped"]["flood_then_warning"])
    assert [kind for kind, _ in shown] == ["stdout", "stderr", "execute_result", "stdout"]
    assert shown[1][1].startswith("Warning: www") and "其余 98 kB" in shown[1][1]
