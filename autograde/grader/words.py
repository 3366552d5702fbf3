"""The grader's words: its catalogue (``autograde/grader/locale/<language>/LC_MESSAGES/grader.po``), which never
leaves the course (the hidden checks' descriptions reach a student only in their own feedback)."""
import pathlib

from coursekit.language import Catalogue, marked

__all__ = ["WORDS", "marked"]

WORDS = Catalogue("grader", pathlib.Path(__file__).with_name("locale"))
