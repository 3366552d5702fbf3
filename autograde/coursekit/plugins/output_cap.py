"""What grading keeps of a cell's outputs: a cap applied while the cells run (issue 16).

nbclient keeps every byte a cell prints: one ``print('x' * 10_000_000)`` in a function the grader
calls a few times makes a 190 MB autograded notebook, a feedback page as large, and holds all of
it in the memory of ``nbgrader autograde``. The course runs :class:`CappedExecute` in place of
nbgrader's ``Execute`` (autograde and validate, see ``nbgrader_config.py``). Each output is
weighed as it arrives; once a cell or the notebook is over its limit the output is cut right
there and a Chinese note, in the stream that was cut, says how much was left out and why.
The live chapter in JupyterLab never runs this code.

What decides a grade is never lost, so the scores are those of an uncapped run (nbgrader's
``determine_grade`` reads the first error, stderr or execute_result of a test cell):

* the ``execute_result`` of a graded cell (its partial credit) is kept whole;
* every ``error`` is kept (very long strings shortened), and so is each cell's first stderr output;
* the note goes into the stream it cuts (stdout when an image or a result is dropped), so it
  never adds stderr to a cell that had none.

Sizes are bytes in the saved ``.ipynb``, estimated: UTF-8 text plus what JSON adds per line and
per output. A limit of -1 means no limit (nbgrader's ``LimitOutput`` convention).
"""
import json

from nbformat import from_dict
from nbformat.v4 import new_output
from nbgrader import utils
from nbgrader.preprocessors import Execute
from nbgrader.validator import Validator
from traitlets import Integer

__all__ = ["CappedExecute", "OutputCap", "cap_validator_outputs", "unchecked_output", "with_capped_execute"]

PER_OUTPUT = 100  # keys, brackets and indentation of one output in the .ipynb
PER_LINE = 11  # quotes, comma, indentation and the escaped "\n" of each stored line
PER_MIME = 30  # the key and indentation of each representation ("image/png", "text/plain") of a display
NOTE_ROOM = PER_OUTPUT + 500  # what the note itself takes (its text: about 400 bytes)
GRACE = 2_000  # bytes kept of a long error string, or of a cell's first stderr past the limits
NOTE = ("[评分时输出过长] 评分只保存每个单元格前 {cell}、整个笔记本前 {notebook} 的输出；"
        "本单元格从这里往后的 {dropped} 输出没有保存（报错和测试得分照常保留）。"
        "分数按完整运行的结果计算，不受影响；完整输出请在自己的 JupyterLab 里运行查看。"
        "这么多输出通常来自调试用的 print，提交前可以删掉。\n")
# the messages that become outputs, and the fields of each that the output keeps (nbformat's output_from_msg)
_FIELDS = {"stream": ("name", "text"), "display_data": ("data", "metadata"),
           "execute_result": ("data", "metadata", "execution_count"), "error": ("ename", "evalue", "traceback")}
_SIZED = set(_FIELDS)


def unchecked_output(msg_type: str, content: dict):
    """The output nbformat's ``output_from_msg`` makes of a message, without checking it against the schema.

    nbclient checks each output as it arrives (≈ 120 per student); grading checks the whole notebook
    once after its last step instead (``c.Exporter.optimistic_validation``), which refuses the same
    outputs before anything is written, and a notebook refused there scores 0 (coursekit.plugins.failures).
    """
    return from_dict({"output_type": msg_type, **{key: content[key] for key in _FIELDS[msg_type]}})


def text_size(text: str) -> int:
    """Bytes ``text`` takes in the .ipynb (UTF-8; nbformat stores one JSON string per line)."""
    return len(text.encode("utf-8", "replace")) + PER_LINE * text.count("\n")


def content_size(msg_type: str, content: dict) -> int:
    """Bytes the output made from a kernel message's ``content`` takes in the .ipynb."""
    if msg_type == "stream":
        return PER_OUTPUT + text_size(content["text"])
    if msg_type == "error":
        lines = [content["ename"], content["evalue"], *content["traceback"]]
        return PER_OUTPUT + sum(text_size(line) + PER_LINE for line in lines)
    values = [v if isinstance(v, str) else json.dumps(v) for v in content.get("data", {}).values()]
    return PER_OUTPUT + sum(PER_MIME + text_size(v) for v in values) + len(json.dumps(content.get("metadata", {})))


def cut_text(text: str, budget: int) -> str:
    """The longest prefix of ``text`` that fits in ``budget`` bytes (0 for a negative budget)."""
    end = max(min(len(text), budget), 0)
    while end and text_size(text[:end]) > budget:  # multi-byte characters and short lines cost more
        end = end * budget // text_size(text[:end])  # strictly smaller: converges in a few steps
    return text[:end]


def human(size: int) -> str:
    """``1.2 MB``, ``300 kB``, ``512 字节``; ``不限`` for the no-limit value -1."""
    if size < 0:
        return "不限"
    if size >= 1_000_000:
        return f"{size / 1_000_000:.1f} MB"
    return f"{size / 1_000:.0f} kB" if size >= 1_000 else f"{size} 字节"


def shorten(text: str) -> str:
    """``text`` if it fits in GRACE bytes, else its start and how much was left out."""
    if text_size(text) <= GRACE:
        return text
    kept = cut_text(text, GRACE)
    return f"{kept}…[评分时省略了 {human(text_size(text) - text_size(kept))}]"


class OutputCap:
    """One notebook's output budget: decides, output by output, what its cells keep.

    ``admit`` is called with each output message's content as it arrives and returns what to
    store (the content, a cut copy, or None) and a note to store right after it (or None).
    The note object stays referenced here and its count grows while the cell drops more.
    """

    def __init__(self, cell_limit: int, notebook_limit: int):
        self.cell_limit, self.notebook_limit = cell_limit, notebook_limit
        self.notebook_used = 0
        self.start_cell(graded=False)

    def start_cell(self, graded: bool) -> None:
        """A new cell runs; ``graded``: an nbgrader grade cell, whose execute_result is its score."""
        self.graded, self.cell_used, self.dropped = graded, 0, 0
        self.note, self.note_start, self.stderr_kept = None, "", False

    def clear_cell(self) -> None:
        """The running cell's outputs were cleared (``clear_output``): they count no more."""
        self.notebook_used -= self.cell_used
        self.start_cell(self.graded)

    def remaining(self) -> int:
        """Bytes the running cell may still keep."""
        limits = [limit - used for limit, used in ((self.cell_limit, self.cell_used),
                                                   (self.notebook_limit, self.notebook_used)) if limit >= 0]
        return min(limits, default=float("inf"))

    def admit(self, msg_type: str, content: dict):
        """``(content to store or None, note to store after it or None)`` for one output message."""
        size = content_size(msg_type, content)
        stream = content.get("name") if msg_type == "stream" else None
        if (self.note is None and size <= self.remaining()) or (msg_type == "execute_result" and self.graded):
            return self._keep(content, size, stream), None
        if msg_type == "error":
            short = dict(content, evalue=shorten(content["evalue"]), traceback=list(map(shorten, content["traceback"])))
            return self._keep(short, content_size(msg_type, short), None), None
        if stream and self.note is None:
            return self._cut(content)
        if stream == "stderr" and not self.stderr_kept:
            return self._keep_start_of_stderr(content), None
        note = self._new_note("stdout", after="") if self.note is None else None  # an image or a result
        self._drop(size)
        return None, note

    def _keep(self, content: dict, size: int, stream) -> dict:
        self.cell_used += size
        self.notebook_used += size
        self.stderr_kept = self.stderr_kept or stream == "stderr"
        return content

    def _cut(self, content: dict):
        """The first overflow of the cell is a stream: keep what fits, the note follows in that stream."""
        kept = cut_text(content["text"], self.remaining() - PER_OUTPUT - NOTE_ROOM)
        stored = self._keep(dict(content, text=kept), PER_OUTPUT + text_size(kept), content["name"]) if kept else None
        note = self._new_note(content["name"], after=kept)
        self._drop(text_size(content["text"]) - text_size(kept))
        return stored, note

    def _keep_start_of_stderr(self, content: dict) -> dict:
        """The cell's first stderr, after its note: kept short, since stderr in a test cell scores 0."""
        kept = cut_text(content["text"], GRACE)
        left_out = text_size(content["text"]) - text_size(kept)
        text = kept + (f"…[评分时省略了这段 stderr 的其余 {human(left_out)}]\n" if left_out else "")
        return self._keep(dict(content, text=text), PER_OUTPUT + text_size(text), "stderr")

    def _new_note(self, stream: str, after: str):
        self.note = new_output("stream", name=stream, text="")
        self.note_start = "\n" if after and not after.endswith("\n") else ""
        self._keep(self.note, NOTE_ROOM, stream)
        return self.note

    def _drop(self, size: int) -> None:
        self.dropped += size
        self.note.text = self.note_start + NOTE.format(
            cell=human(self.cell_limit), notebook=human(self.notebook_limit), dropped=human(self.dropped))


class CappedExecute(Execute):
    """nbgrader's ``Execute`` whose cells keep a capped amount of output while they run."""

    cell_output_limit = Integer(
        300_000, help="Bytes of output one cell keeps while grading; beyond it the output is cut with a note "
                      "(-1: no limit). Execute results of graded cells and errors are always kept.",
    ).tag(config=True)
    notebook_output_limit = Integer(
        1_200_000, help="Bytes of output a whole notebook keeps while grading (-1: no limit).",
    ).tag(config=True)

    def preprocess(self, nb, resources=None, km=None):
        self.cap = OutputCap(self.cell_output_limit, self.notebook_output_limit)  # one per notebook
        return super().preprocess(nb, resources, km)

    def preprocess_cell(self, cell, resources, index):
        self.cap.start_cell(graded=utils.is_grade(cell))
        return super().preprocess_cell(cell, resources, index)

    def output(self, outs, msg, display_id, cell_index):
        """nbclient's step for each output message of the running cell: store what the cap admits."""
        hooked = self.output_hook_stack[msg["parent_header"].get("msg_id")]  # widgets' Output capture
        if hooked or msg["msg_type"] not in _SIZED:
            return super().output(outs, msg, display_id, cell_index)
        if self.clear_before_next_output:  # nbclient would clear at the next output it stores; do it now
            outs[:] = []
            self.clear_display_id_mapping(cell_index)
            self.clear_before_next_output = False
            self.cap.clear_cell()
        content, note = self.cap.admit(msg["msg_type"], msg["content"])
        out = None if content is None else self._store(outs, unchecked_output(msg["msg_type"], content),
                                                       display_id, cell_index)
        if note is not None:
            outs.append(note)
        return out

    def _store(self, outs, out, display_id, cell_index):
        """nbclient's own step for an output: where a display id's outputs are, for update_display_data."""
        if display_id:
            self._display_id_map.setdefault(display_id, {}).setdefault(cell_index, []).append(len(outs))
        outs.append(out)
        return out

    def clear_output(self, outs, msg, cell_index):
        """``clear_output()`` in the cell: what it cleared no longer counts (a delayed clear: see output)."""
        hooked = self.output_hook_stack[msg["parent_header"].get("msg_id")]
        super().clear_output(outs, msg, cell_index)
        if not hooked and not msg["content"].get("wait"):
            self.cap.clear_cell()


def with_capped_execute(steps: list) -> list:
    """``steps`` (a converter's preprocessor classes) with nbgrader's Execute replaced by CappedExecute."""
    return [CappedExecute if step is Execute else step for step in steps]


def cap_validator_outputs() -> None:
    """Make ``nbgrader validate`` run CappedExecute too.

    nbgrader 0.9's ``Validator.preprocessors`` is not a configurable trait, so the class default
    is swapped; it affects only the process that imports :mod:`coursekit.plugins` (which calls
    this). Calling it again changes nothing: CappedExecute is no longer nbgrader's Execute.
    """
    trait = Validator.class_traits()["preprocessors"]
    trait.default_args = (with_capped_execute(trait.default()),)
