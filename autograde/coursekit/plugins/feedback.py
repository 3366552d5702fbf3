"""What feedback leaves out: hidden-test regions (again), the grader's records, and the grader's source.

nbgrader puts hidden tests back into the autograded notebook and, by design, shows them in the
feedback HTML (jupyter/nbgrader#917). :class:`ClearHiddenTestsInFeedback` strips them again
before ``generate_feedback`` exports, together with the grader's machine-readable records (for
the class report, not for students); the cells' printed ``[PASS]/[FAIL]`` lines stay.

The grading kernel can read the grader (it loads it), so a student's code can print it. Every
output of the notebook is therefore searched for the grader's source lines (each line of at least
:data:`LONG_ENOUGH` characters, taken whole): where one appears it is replaced by a note, so the
hidden checks never reach a student through their own feedback. What this cannot catch — the
source re-encoded before printing (base64, reversed …) — is listed in autograde/README.md.
"""
import functools
import pathlib

from nbgrader import utils
from nbgrader.preprocessors import ClearHiddenTests
from traitlets import List, Unicode

from attnkit.record import MIME

__all__ = ["ClearHiddenTestsInFeedback", "LONG_ENOUGH", "REMOVED", "grader_lines", "scrub"]

LONG_ENOUGH = 24  # characters: shorter lines ("return 0", "else:") are everyday code, not the grader's
REMOVED = "【此处是评分器的代码，已从反馈中删去】"


@functools.lru_cache(maxsize=4)
def _lines(folder: str, version: tuple) -> tuple:
    texts = (path.read_text(encoding="utf-8") for path in sorted(pathlib.Path(folder).glob("*.py")))
    lines = {line.strip() for text in texts for line in text.splitlines()}
    return tuple(sorted((line for line in lines if len(line) >= LONG_ENOUGH), key=len, reverse=True))


def grader_lines(grader) -> tuple:
    """The grader's source lines worth searching for (longest first), from the folder of ``grader``."""
    folder = pathlib.Path(grader).parent
    files = sorted(folder.glob("*.py"))
    return _lines(str(folder), tuple((p.name, p.stat().st_mtime_ns, p.stat().st_size) for p in files))


def scrub(text: str, lines) -> str:
    """``text`` with every occurrence of one of ``lines`` replaced by :data:`REMOVED`."""
    for line in lines:
        if line in text:
            text = text.replace(line, REMOVED)
    return text


class ClearHiddenTestsInFeedback(ClearHiddenTests):
    """Strip hidden regions from autograder test cells, records from every cell, grader source from outputs.

    Their source was restored from the master by ``OverwriteCells``; a student's own cell that
    happens to contain the delimiter text is left alone instead of aborting that student's feedback.
    """

    display_data_priority = List().tag(config=True)  # set by the HTML exporter; unused here
    grader = Unicode("", help="The course's grader (…/grader/__init__.py): its source lines are removed from "
                              "every output shown in feedback. Empty: outputs are not searched.").tag(config=True)

    def preprocess(self, nb, resources):
        self._grader_lines = grader_lines(self.grader) if self.grader else ()
        return super().preprocess(nb, resources)

    def preprocess_cell(self, cell, resources, cell_index):
        if utils.is_grade(cell) and not utils.is_solution(cell):
            self._remove_hidden_test_region(cell)
        if cell.cell_type == "code":
            cell.outputs = [self._scrubbed(o) for o in cell.outputs if MIME not in o.get("data", {})]
        return cell, resources

    def _scrubbed(self, output):
        lines = self._grader_lines
        if not lines:
            return output
        if "text" in output:
            output.text = scrub(output.text, lines)
        if output.get("output_type") == "error":
            output.evalue = scrub(output.evalue, lines)
            output.traceback = [scrub(line, lines) for line in output.traceback]
        for mime, value in output.get("data", {}).items():
            if isinstance(value, str) and (mime.startswith("text/") or mime.endswith("json")):
                output.data[mime] = scrub(value, lines)
        return output
