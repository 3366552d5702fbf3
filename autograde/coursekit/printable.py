"""Text a student had a hand in, made safe to print on the instructor's terminal or in a log.

A reason for a 0 quotes the error a notebook raised, a note names a student by their folder's name, a log line
repeats what a kernel said: all of it may hold bytes a terminal obeys (ESC sequences that move the cursor, rewrite
the title or the clipboard, hide the lines before them) or characters that reorder what is shown (bidirectional
controls). :func:`printable` writes every such character as a visible escape, so the instructor reads what was
there and the terminal does nothing. Standard library only.
"""
import re

__all__ = ["printable"]

# C0 controls but tab and newline, DEL, C1 controls, and the bidirectional embeddings, overrides and isolates
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_NEWLINE = re.compile("[\n\t]")


def printable(text, one_line: bool = False) -> str:
    """``text`` (any object, as ``str``) with every control character written as its escape (``\\x1b``); with
    ``one_line``, newlines and tabs too (a line of a summary or a log stays one line)."""
    text = _CONTROL.sub(_escape, str(text))
    return _NEWLINE.sub(_escape, text) if one_line else text


def _escape(match) -> str:
    code = ord(match.group(0))
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
