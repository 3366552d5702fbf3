"""The pseudo-locale walk (issue 57): a page or a text shown in the pseudo-locale (``qps``, every message of the
catalogue bracketed and accented, ``⟦Ŝübmït⟧``: :func:`coursekit.language.pseudo`) says nothing a person reads that
did not come from the catalogue. Whatever is left of a text once its bracketed messages (and the values filled into
them) are taken out may hold digits, punctuation and data (a student's id, a cell's name, what a student wrote), never
a word of ours.

One rule, two walkers: :func:`stray_in_html` (Python's HTML parser: the pages the unit tier renders) and
:data:`STRAY_IN_PAGE` (a function Chromium evaluates on a page a browser test has open). Both skip what is data or
is no word: scripts and styles, ``<kbd>`` (a key's name) and ``<code>`` (taken out of a message that holds them),
an element in another language (``lang``:
the link to each language, named in its own), and the elements a caller names as data.
"""
import html.parser
import re

from coursekit.language import CLOSE, OPEN

_BRACKETED = re.compile(f"{OPEN}[^{OPEN}{CLOSE}]*{CLOSE}")
_WORD = re.compile(r"[A-Za-z]{2,}|[\u3400-\u9fff]")  # a word of ours: two Latin letters or more, a CJK character
_SKIPPED = {"script", "style", "kbd", "code", "svg"}
_ATTRIBUTES = ("title", "aria-label", "placeholder", "alt")
_KEYS = re.compile(r"<(kbd|code)>.*?</\1>", re.S)
_INLINE = re.compile(r"</?(?:b|i|em|strong)>")
_VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


def left_over(text: str, data=()) -> list:
    """The words of ``text`` outside any bracketed message (innermost first) and outside ``data`` (values a page
    shows as they are: names, ids, what students wrote; a :class:`Known` set: any of its words)."""
    known = data if isinstance(data, Known) else Known()
    for value in sorted(() if isinstance(data, Known) else data, key=len, reverse=True):
        text = text.replace(value, " ")
    while True:
        fewer = _BRACKETED.sub(" ", text)
        if fewer == text:
            return [word for word in _WORD.findall(text) if word not in known]
        text = fewer


class Known(frozenset):
    """The words of a document a page shows (a notebook's cells): data wherever they appear, word by word."""

    @classmethod
    def of(cls, *texts: str) -> "Known":
        return cls(word for text in texts for word in _WORD.findall(text))


class _Walker(html.parser.HTMLParser):
    def __init__(self, data_classes: set, data: tuple):
        super().__init__(convert_charrefs=True)
        self.data_classes, self.data, self.stack, self.found, self.page_lang = data_classes, data, [], [], None

    def _skipping(self) -> bool:
        return any(skip for _, skip in self.stack)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if self.page_lang is None and attrs.get("lang"):  # <html lang>, else the first element to say one
            self.page_lang = attrs["lang"]
        classes = set((attrs.get("class") or "").split()) | {"#" + attrs.get("id", "")}
        other_language = attrs.get("lang") not in (None, self.page_lang)
        skip = tag in _SKIPPED or bool(classes & self.data_classes) or other_language
        if not skip and not self._skipping():
            for name in _ATTRIBUTES:
                if attrs.get(name):
                    self.found += [(f"<{tag} {name}>", word) for word in left_over(attrs[name], self.data)]
        if tag not in _VOID:
            self.stack.append((tag, skip))

    def handle_endtag(self, tag):
        while self.stack:
            if self.stack.pop()[0] == tag:
                break

    def handle_data(self, text):
        if not self._skipping():
            where = self.stack[-1][0] if self.stack else "document"
            self.found += [(where, word) for word in left_over(text, self.data)]


def stray_in_html(page: str, data_classes=(), data=()) -> list:
    """``(element, word)`` of every word of ``page`` (an HTML page in the pseudo-locale) that no message said;
    ``data_classes``: classes (``"name"``) and ids (``"#name"``) of elements that hold data; ``data``: values shown."""
    walker = _Walker(set(data_classes), data if isinstance(data, Known) else tuple(data))
    # a message with markup of its own (keys, code) is one text once its keys and code are set aside
    walker.feed(_INLINE.sub("", _KEYS.sub(" ", page)))
    walker.close()
    return walker.found


# The same rule in the browser, on the page as its scripts drew it: ``page.evaluate(STRAY_IN_PAGE, data_selector)``
# gives ``[[where, text], …]`` of the text nodes (and labels) left with a word once their messages are taken out.
STRAY_IN_PAGE = """(dataSelector) => {
  const skipped = "script, style, kbd, code, svg" + (dataSelector ? ", " + dataSelector : "");
  const pageLang = document.documentElement.lang;
  const word = /[A-Za-z]{2,}|[\\u3400-\\u9fff]/;
  const leftOver = (text) => {
    let before;
    do { before = text; text = text.replace(/OPEN[^OPENCLOSE]*CLOSE/g, " "); } while (text !== before);
    return word.test(text);
  };
  const ignored = (element) => !!element.closest(skipped)
    || [...document.querySelectorAll("[lang]")].some((e) => e !== document.documentElement
      && e.lang !== pageLang && e.contains(element));
  const found = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const node = walker.currentNode;
    if (node.parentElement && !ignored(node.parentElement) && leftOver(node.nodeValue)) {
      found.push([node.parentElement.tagName + "." + node.parentElement.className, node.nodeValue]);
    }
  }
  document.querySelectorAll("[title], [aria-label], [placeholder]").forEach((e) => {
    if (ignored(e)) return;
    ["title", "aria-label", "placeholder"].forEach((name) => {
      const value = e.getAttribute(name);
      if (value && leftOver(value)) found.push([e.tagName + "[" + name + "]", value]);
    });
  });
  return found;
}""".replace("OPEN", OPEN).replace("CLOSE", CLOSE)
