"""What grading keeps of a cell's outputs: a cap applied while the cells run.

nbclient keeps every byte a cell prints: one ``print('x' * 10_000_000)`` in a function the grader
calls a few times makes a 190 MB autograded notebook, a feedback page as large, and holds all of
it in the memory of ``nbgrader autograde``. The grading kernel's client
(:mod:`coursekit.kernel.client`) weighs each output message with :class:`OutputCap` as it
arrives, before nbclient stores it: once a cell or the notebook is over its limit the output is cut
right there, and at the end of the cell a note, in the stream that was cut and in the notebook's language
(the course's catalogue, ``output_cap.*``; the grading process sets :attr:`OutputCap.lang` from the notebook's edition), says how much
was left out and why. This applies to every command that grades (autograde, validate, ``make grade``,
the grading service); the live chapter in JupyterLab never runs this code.

What decides a grade is never lost, so the scores are those of an uncapped run (nbgrader's
``determine_grade`` reads the first error, stderr or execute_result of a test cell):

* a short ``execute_result`` (a cell's partial credit is a float) is kept whole;
* every ``error`` is kept (very long strings shortened), and so is each cell's first stderr output;
* the note goes into the stream it cuts (stdout when an image or a result is dropped), so it
  never adds stderr to a cell that had none.

Sizes are bytes in the saved ``.ipynb``, estimated: UTF-8 text plus what JSON adds per line and
per output. A limit of -1 means no limit (nbgrader's ``LimitOutput`` convention).
"""
import json

from ..language import WORDS

__all__ = ["OutputCap", "content_size", "cut_text", "human", "text_size"]

PER_OUTPUT = 100  # keys, brackets and indentation of one output in the .ipynb
PER_LINE = 11  # quotes, comma, indentation and the escaped "\n" of each stored line
PER_MIME = 30  # the key and indentation of each representation ("image/png", "text/plain") of a display
NOTE_ROOM = PER_OUTPUT + 500  # what the note itself takes (its text: about 400 bytes)
GRACE = 2_000  # bytes kept of a long error string, or of a cell's first stderr past the limits
# the messages that become outputs, and the fields of each that the output keeps (nbformat's output_from_msg)
_FIELDS = {"stream": ("name", "text"), "display_data": ("data", "metadata"),
           "execute_result": ("data", "metadata", "execution_count"), "error": ("ename", "evalue", "traceback")}
_SIZED = set(_FIELDS)


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


def human(size: int, lang: str = "zh") -> str:
    """``1.2 MB``, ``300 kB``, ``512 字节`` (``512 bytes``); ``不限`` (``no limit``) for the no-limit value -1."""
    if size < 0:
        return WORDS.say(lang, "output_cap.unlimited")
    if size >= 1_000_000:
        return f"{size / 1_000_000:.1f} MB"
    return f"{size / 1_000:.0f} kB" if size >= 1_000 else WORDS.say(lang, "output_cap.bytes", size=size)


def shorten(text: str, lang: str = "zh") -> str:
    """``text`` if it fits in GRACE bytes, else its start and how much was left out."""
    if text_size(text) <= GRACE:
        return text
    kept = cut_text(text, GRACE)
    return kept + WORDS.say(lang, "output_cap.shortened", size=human(text_size(text) - text_size(kept), lang))


class OutputCap:
    """One notebook's output budget: decides, output by output, what its cells keep.

    ``admit`` is called with each output message's content as it arrives and returns what to
    store: the content, a cut copy, or None. :meth:`note` then gives, once the cell has ended,
    the stream message saying what the cell left out (None when it kept everything).
    """

    def __init__(self, cell_limit: int, notebook_limit: int, lang: str = "zh"):
        self.cell_limit, self.notebook_limit = cell_limit, notebook_limit
        self.lang = lang  # what the notes are written in: the notebook's language, once it is known
        self.notebook_used = 0
        self.start_cell()

    def start_cell(self) -> None:
        """A new cell runs."""
        self.cell_used, self.dropped = 0, 0
        self.cut_stream, self.stderr_kept = None, False

    def clear_cell(self) -> None:
        """The running cell's outputs were cleared (``clear_output``): they count no more."""
        self.notebook_used -= self.cell_used
        self.start_cell()

    def remaining(self) -> int:
        """Bytes the running cell may still keep."""
        limits = [limit - used for limit, used in ((self.cell_limit, self.cell_used),
                                                   (self.notebook_limit, self.notebook_used)) if limit >= 0]
        return min(limits, default=float("inf"))

    def admit(self, msg_type: str, content: dict):
        """The content to store for one output message (``content``, a cut copy), or None."""
        size = content_size(msg_type, content)
        stream = content.get("name") if msg_type == "stream" else None
        if self.cut_stream is None and size <= self.remaining():
            return self._keep(content, size, stream)
        if msg_type == "execute_result" and size <= GRACE:  # a score: never what a flood pushes out
            return self._keep(content, size, None)
        if msg_type == "error":
            short = dict(content, evalue=shorten(content["evalue"], self.lang),
                         traceback=[shorten(line, self.lang) for line in content["traceback"]])
            return self._keep(short, content_size(msg_type, short), None)
        if stream and self.cut_stream is None:
            return self._cut(content)
        if stream == "stderr" and not self.stderr_kept:
            return self._keep_start_of_stderr(content)
        if self.cut_stream is None:
            self._start_dropping("stdout")  # an image or a result
        self.dropped += size
        return None

    def note(self):
        """``{"name": stream, "text": …}``: what the ended cell left out, or None when nothing."""
        if not self.dropped:
            return None
        return {"name": self.cut_stream, "text": "\n" + WORDS.say(
            self.lang, "output_cap.note", cell=human(self.cell_limit, self.lang), notebook=human(self.notebook_limit, self.lang),
            dropped=human(self.dropped, self.lang))}

    def _keep(self, content: dict, size: int, stream) -> dict:
        self.cell_used += size
        self.notebook_used += size
        self.stderr_kept = self.stderr_kept or stream == "stderr"
        return content

    def _cut(self, content: dict):
        """The first overflow of the cell is a stream: keep what fits; the note will be in that stream."""
        kept = cut_text(content["text"], self.remaining() - PER_OUTPUT - NOTE_ROOM)
        self._start_dropping(content["name"])
        self.dropped += text_size(content["text"]) - text_size(kept)
        return self._keep(dict(content, text=kept), PER_OUTPUT + text_size(kept), content["name"]) if kept else None

    def _start_dropping(self, stream: str) -> None:
        """The cell drops from now on; its note, written at its end, is in ``stream`` and counted now."""
        self.cut_stream = stream
        self._keep(None, NOTE_ROOM, stream)

    def _keep_start_of_stderr(self, content: dict) -> dict:
        """The cell's first stderr, after a cut: kept short, since stderr in a test cell scores 0."""
        kept = cut_text(content["text"], GRACE)
        left_out = text_size(content["text"]) - text_size(kept)
        text = kept + (WORDS.say(self.lang, "output_cap.stderr", size=human(left_out, self.lang)) if left_out else "")
        return self._keep(dict(content, text=text), PER_OUTPUT + text_size(text), "stderr")
