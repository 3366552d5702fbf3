"""Which statements of a code cell are the student's own work: not those without effect, nor what the release
spells out.

A cell is read with Python's :mod:`ast` (IPython's ``%`` and ``!`` lines blanked; a cell that still does not
parse keeps every line).

* **Without effect** (:func:`noise`): ``pass``; a bare constant, name or attribute (a docstring, ``...``, ``0``,
  ``x``); an assignment (not ``+=``: it may change an array in place) or a deletion of names nothing in the cell
  reads, whose value is a constant or a name (``_ = 0``, ``junk = x``); a branch that cannot run (``if False:``,
  ``while 0:``); a branch or a loop (over a name or a ``range``) whose every statement is without effect. Dropped
  before fingerprinting: junk lines neither dilute a copy nor break its runs of tokens.
* **Common ground** (:class:`Ground`, :func:`ground_of`, :func:`spelled`): a statement whose form is a statement of
  the master's solution or of the release's code, or whose value (what it assigns, adds or returns) is one of
  theirs or one the release's comments spell out (``# 把 scale * Q @ K^T 写进 out`` spells ``scale * Q @ K.T``,
  ``^T`` read as a transpose). Two students who both wrote it did what they were told, in any class size.

A statement's **form** is its syntax tree with every name, argument, function name and string made the same
(:func:`form`): renamed variables, other words in a message, spacing, parentheses and comments do not change it;
attribute names, keywords and numbers do.
"""
import ast
import functools
import io
import re
import tokenize
from dataclasses import dataclass

__all__ = ["Ground", "form", "noise", "spelled", "ground_of", "parsed"]

_TRANSPOSE = re.compile(r"(\w|\))\^T\b")   # K^T, (Q K)^T: a transpose as written in prose
_ASCII_RUN = re.compile(r"[\x20-\x7e]+")   # code inside a comment in another script: runs of ASCII


@dataclass(frozen=True)
class Ground:
    """What the release spells out: forms of whole statements, and forms of values (expressions)."""
    statements: frozenset = frozenset()
    values: frozenset = frozenset()

    def holds(self, node: ast.stmt) -> bool:
        """Is ``node`` (a statement) common ground: its form one of :attr:`statements`, or its value's one of
        :attr:`values`?"""
        if form(node) in self.statements:
            return True
        value = _value(node)
        return value is not None and form(value) in self.values


_NAMED = (ast.arg, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)  # whose "arg" or "name" is a name


def form(node) -> tuple:
    """``node``'s form (module docstring): its syntax tree as nested tuples, every name, argument, defined name and
    string the same (copydetect's tokens do not see a string's words either)."""
    if isinstance(node, list):
        return tuple(form(item) for item in node)
    if not isinstance(node, ast.AST):
        return node
    if isinstance(node, ast.Name):
        return "V"
    if isinstance(node, ast.Constant):
        return "S" if isinstance(node.value, (str, bytes)) else repr(node.value)
    return (type(node).__name__, *(("V" if key in ("arg", "name") and isinstance(node, _NAMED) else form(value))
                                   for key, value in ast.iter_fields(node) if key not in ("ctx", "type_comment")))


def _value(node: ast.stmt):
    """What a statement computes and keeps (an assignment's or return's value, an expression's), if anything more
    than a name or a constant."""
    value = node.value if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Return, ast.Expr)) else None
    return None if value is None or _plain(value) else value


def _plain(node) -> bool:
    """A constant, a name, an attribute of one, or a tuple of those: reading it does nothing."""
    if isinstance(node, (ast.Constant, ast.Name)):
        return True
    if isinstance(node, ast.Attribute):
        return _plain(node.value)
    if isinstance(node, (ast.Tuple, ast.List)):
        return all(_plain(item) for item in node.elts)
    if isinstance(node, ast.UnaryOp):
        return _plain(node.operand)
    return False


@functools.lru_cache(maxsize=4096)
def parsed(source: str):
    """``source``'s module tree, or None when it does not parse (IPython's ``%``/``!`` lines blanked first). Cached:
    a cell is read for its work, its common ground and its pair's page; nobody changes the tree."""
    blanked = "\n".join(" " * len(line) if line.lstrip()[:1] in ("%", "!") else line
                        for line in source.split("\n"))
    try:
        return ast.parse(blanked)
    except (SyntaxError, ValueError):
        return None


def _loaded(tree: ast.AST, skipped: set) -> set:
    """Names read anywhere in ``tree`` outside the statements in ``skipped``."""
    found, stack = set(), [tree]
    while stack:
        node = stack.pop()
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            found.add(node.id)
        stack.extend(ast.iter_child_nodes(node))
    return found


def _targets_unread(node: ast.stmt, loaded: set) -> bool:
    targets = (node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target])
    return all(isinstance(t, ast.Name) and t.id not in loaded for t in targets)


def _idle(node: ast.stmt, loaded: set, dropped) -> bool:
    """Is ``node`` without effect, given the names read elsewhere and ``dropped(statements)`` of a body?"""
    if isinstance(node, ast.Pass):
        return True
    if isinstance(node, ast.Expr):
        return _plain(node.value)
    if isinstance(node, (ast.Assign, ast.AnnAssign)):  # not +=: it may change an array in place (scores += mask)
        return (node.value is None or _plain(node.value)) and _targets_unread(node, loaded)
    if isinstance(node, ast.Delete):
        return _targets_unread(node, loaded)
    if isinstance(node, (ast.If, ast.While)):
        never = isinstance(node.test, ast.Constant) and not node.test.value
        return never and dropped(node.orelse) or (_plain(node.test) and dropped(node.body) and dropped(node.orelse))
    if isinstance(node, ast.For):
        counted = (isinstance(node.iter, ast.Call) and isinstance(node.iter.func, ast.Name)
                   and node.iter.func.id == "range" and all(_plain(a) for a in node.iter.args))
        return dropped(node.body) and dropped(node.orelse) and (_plain(node.iter) or counted)
    return False


def _walk_bodies(tree: ast.AST):
    """Every statement of ``tree``, outer ones first (a function's body included)."""
    for node in ast.walk(tree):
        for name in ("body", "orelse", "finalbody", "handlers"):
            children = getattr(node, name, None)
            for child in children if isinstance(children, list) else ():
                if isinstance(child, ast.stmt):
                    yield child


@functools.lru_cache(maxsize=4096)
def _statements(tree: ast.AST) -> tuple:
    return tuple(_walk_bodies(tree))


def noise(tree: ast.AST) -> list:
    """The statements of ``tree`` without effect (module docstring), outermost only."""
    idle, statements = set(), _statements(tree)
    while True:
        loaded = _loaded(tree, idle)
        found = set()

        def dropped(body, found=found):
            return all(id(s) in idle or id(s) in found for s in body)

        for node in reversed(statements):  # inner statements first: a body's verdicts are known
            if id(node) not in idle and _idle(node, loaded, dropped):
                found.add(id(node))
        if not found:
            break
        idle |= found
    nodes = {id(n): n for n in statements}
    inner = {id(c) for i in idle for c in ast.walk(nodes[i]) if c is not nodes[i]}
    return [nodes[i] for i in idle if i not in inner]


def _code_like(node) -> bool:
    """More than a word: an operator, a call, a subscript or an assignment (prose's single words parse too)."""
    return node is not None and not isinstance(node, (ast.Name, ast.Constant)) and not (
        isinstance(node, ast.Tuple) and all(isinstance(e, (ast.Name, ast.Constant)) for e in node.elts))


def _said(node: ast.stmt):
    """What a statement of prose would say: an expression's or a return's value (None: nothing), else itself."""
    return getattr(node, "value", None) if isinstance(node, (ast.Expr, ast.Return)) else node


def _pieces(text: str) -> list:
    """The longest stretches of ``text`` (a comment) that parse as Python and are more than a word, left to right,
    ``^T`` read as ``.T``; as statements (a bare expression as itself)."""
    found = []
    for run in _ASCII_RUN.findall(text):
        words = _TRANSPOSE.sub(r"\1.T", run).split()
        start = 0
        while start < len(words):
            for end in range(len(words), start, -1):
                tree = parsed(" ".join(words[start:end]))
                if tree is not None and len(tree.body) == 1 and _code_like(_said(tree.body[0])):
                    found.append(tree.body[0])
                    start = end
                    break
            else:
                start += 1
    return found


def _comments(source: str) -> list:
    """The text of every comment in ``source`` (none when it cannot be tokenised)."""
    try:
        return [token.string.lstrip("#") for token in tokenize.generate_tokens(io.StringIO(source).readline)
                if token.type == tokenize.COMMENT]
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return []


def spelled(source: str) -> list:
    """The statements the comments of ``source`` spell out (module docstring)."""
    return [piece for comment in _comments(source) for piece in _pieces(comment)]


def ground_of(code=(), commented=()) -> Ground:
    """The common ground of the statements of ``code`` (sources: the master's solutions, the release's code) and of
    what the comments of ``commented`` (the release's cells) spell out."""
    statements = [s for source in code for s in _walk_bodies(parsed(source) or ast.Module([], []))]
    statements += [s for source in commented for s in spelled(source)]
    values = {form(v) for v in map(_value, statements) if v is not None}
    values |= {form(s.value) for s in statements if isinstance(s, ast.Expr) and not _plain(s.value)}
    return Ground(frozenset(form(s) for s in statements), frozenset(values))


def _offsets(source: str) -> list:
    """The index in ``source`` where each line starts (ast's lines count from 1)."""
    starts, at = [0], 0
    for line in source.split("\n"):
        at += len(line) + 1
        starts.append(at)
    return starts


def _span(source: str, starts: list, node: ast.stmt) -> tuple:
    """Where ``node`` lies in ``source`` as ``(start, end)`` indexes (ast counts columns in UTF-8 bytes), a ``;``
    after it included."""
    def at(line: int, column: int) -> int:
        text = source[starts[line - 1]:starts[line]]
        return starts[line - 1] + len(text.encode("utf-8")[:column].decode("utf-8", "ignore"))
    start, end = at(node.lineno, node.col_offset), at(node.end_lineno, node.end_col_offset)
    after = re.match(r"[ \t]*;", source[end:])
    return start, end + (after.end() if after else 0)


@functools.lru_cache(maxsize=4096)
def spans(source: str, ground: Ground | None = None) -> tuple:
    """``(start, end)`` of each statement of ``source`` without effect, or (given ``ground``) of each that is common
    ground and has an effect (the outermost that is: a loop the release spells out goes whole); [] when it does not
    parse."""
    tree = parsed(source)
    if tree is None:
        return ()
    statements = _statements(tree)
    idle, chosen, inside = {id(node) for node in noise(tree)}, set(), set()
    for node in statements:  # outer statements first
        if id(node) in inside:
            continue
        if id(node) in idle or (ground is not None and ground.holds(node)):
            chosen.add(id(node))
            inside |= {id(c) for c in ast.walk(node)}
    wanted = (lambda i: i in idle) if ground is None else (lambda i: i not in idle)
    starts = _offsets(source)
    return tuple(sorted(_span(source, starts, node) for node in statements if id(node) in chosen and wanted(id(node))))
