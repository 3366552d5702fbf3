"""axe-core's WCAG 2.1 A and AA rules on a page the course makes, inside the Chromium walks the tests already take.

``assert_accessible(page, name, ours=...)`` runs axe-core (bundled by ``axe-playwright-python``) on the page as the
walk left it and sorts every violating element by whose it is: **ours** (inside ``ours``, a CSS selector: our
prose, outputs, figures, explorer, pages we write; ``None`` = the whole page) or **upstream's** (JupyterLab's own
chrome around them). Any violation of ours fails the test; an upstream one passes only when its rule is in
:data:`UPSTREAM` with the issue that tracks it there, so a new one is written down, never hidden. Every run leaves
``artefacts/a11y/<name>.json`` (each rule, its elements, axe's own summary of what fails) for docs/accessibility.md.
"""
import dataclasses
import json
import time

from axe_playwright_python.base import AXE_SCRIPT

from support.lab_server import REPO

ARTEFACTS = REPO / "artefacts" / "a11y"
TAGS = ("wcag2a", "wcag2aa", "wcag21a", "wcag21aa")  # WCAG 2.0 and 2.1, levels A and AA

# JupyterLab's own violations (its chrome, not our cells' content), by rule: the upstream issue that tracks it.
# docs/accessibility.md lists them for an accessibility office; a rule not here fails the walk.
UPSTREAM = {
    "aria-input-field-name": "JupyterLab: CodeMirror's cell editors carry no accessible name "
                             "(jupyterlab/jupyterlab#16890; CodeMirror leaves the label to the host: codemirror/dev#1127)",
    "button-name": "JupyterLab: a heading cell's collapse button (.jp-collapseHeadingButton) has no accessible name "
                   "(no issue of its own found; jupyterlab/jupyterlab#16890 lists the WCAG 4.1.2 family)",
    "aria-allowed-attr": "JupyterLab: toolbar <jp-button>s carry aria-pressed on role none (jupyterlab/jupyterlab#16891)",
    "aria-required-children": "JupyterLab: the notebook's role=feed holds cells that are not articles "
                              "(jupyterlab/jupyterlab#14765)",
    "scrollable-region-focusable": "JupyterLab: a read-only cell's editor scrolls sideways and takes no focus "
                                   "(jupyterlab/jupyterlab#9399); nbgrader: Validate's dialog body scrolls and takes "
                                   "no focus (not filed yet: docs/upstream/nbgrader-validate-dialog.md)",
}

# The notebook's content in JupyterLab: rendered prose and every output (figures, the explorer, verify's lines).
LAB_CONTENT = ".jp-Notebook .jp-MarkdownOutput, .jp-Notebook .jp-OutputArea-output"

# Runs axe in the page, keeps each violating element's whose-ness (elementRef), returns plain data.
_RUN_JS = """async ([tags, ours, within]) => {
  const context = within === null ? document : {include: [within]};
  const results = await axe.run(context, {runOnly: {type: 'tag', values: tags}, resultTypes: ['violations'],
                                          elementRef: true});
  return results.violations.map(v => ({
    rule: v.id, impact: v.impact, help: v.help, url: v.helpUrl,
    nodes: v.nodes.map(n => ({target: n.target.map(String).join(' >>> '), html: n.html.slice(0, 200),
                              summary: (n.failureSummary || '').slice(0, 300),
                              ours: ours === null || !!(n.element && n.element.closest && n.element.closest(ours))})),
  }));
}"""


@dataclasses.dataclass(frozen=True)
class Violation:
    """One axe rule broken on a page, by ``count`` elements."""
    rule: str
    impact: str
    help: str
    count: int
    elements: tuple  # ({target, html, summary}, …)

    def line(self) -> str:
        first = self.elements[0]
        return f"{self.rule} ({self.impact}, {self.count} element(s)): {self.help}; e.g. {first['target']}: " \
               f"{first['summary'].splitlines()[-1] if first['summary'] else first['html']}"


@dataclasses.dataclass(frozen=True)
class Audit:
    """What axe found on one page: violations in our content and in upstream's."""
    page: str
    ours: tuple
    upstream: tuple

    @property
    def elements(self) -> int:
        return sum(v.count for v in self.ours)


def _violations(found: list, whose: bool) -> tuple:
    kept = []
    for v in found:
        nodes = [n for n in v["nodes"] if n["ours"] == whose]
        if nodes:
            kept.append(Violation(v["rule"], v["impact"] or "", v["help"], len(nodes), tuple(nodes)))
    return tuple(kept)


def audit(page, name: str, ours: str | None = None, within: str | None = None) -> Audit:
    """axe's WCAG 2.1 A/AA rules on ``page`` now (only what ``within`` selects, when given); violations sorted into
    ours (inside ``ours``; ``None``: all) and upstream's."""
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.evaluate(AXE_SCRIPT)
    start = time.perf_counter()
    found = page.evaluate(_RUN_JS, [list(TAGS), ours, within])
    result = Audit(name, _violations(found, True), _violations(found, False))
    record = {**dataclasses.asdict(result), "seconds": round(time.perf_counter() - start, 2)}
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    (ARTEFACTS / f"{name}.json").write_text(json.dumps(record, indent=1, ensure_ascii=False),
                                            encoding="utf-8")
    return result


def assert_accessible(page, name: str, ours: str | None = None, within: str | None = None) -> Audit:
    """No WCAG 2.1 A/AA violation in our content; upstream's only where :data:`UPSTREAM` names its issue."""
    result = audit(page, name, ours, within)
    unlisted = [v for v in result.upstream if v.rule not in UPSTREAM]
    problems = [f"ours: {v.line()}" for v in result.ours]
    problems += [f"upstream, not in axe_audit.UPSTREAM (find or file its issue there): {v.line()}" for v in unlisted]
    assert not problems, f"{name}: {len(problems)} accessibility violation(s) (artefacts/a11y/{name}.json):\n" + \
        "\n".join(problems)
    return result
