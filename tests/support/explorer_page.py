"""Driving the browser explorer (attnkit.widgets, attnkit/assets/explorer.js) in a page, the way a reader does.

The same in JupyterLab and in the static edition (``make book``): the explorer under a root
selector, its range inputs, buttons and canvas found by their CSS hooks. Latency is key
press / click → the frame that shows the new figure: a capture-phase listener stamps the
input, a MutationObserver sees the canvas's ``data-frame`` counter change (the figure has
been drawn) and the next ``requestAnimationFrame`` callback is the frame it is painted in.
(The old kernel round trip is timed the same way on its <img>: ``lab_page.explorer_latencies``.)
"""
EXPLORER = ".attn-explorer"

_PROBE_JS = """(sel) => {
  const canvas = document.querySelector(sel);
  const probe = window.__attnLatency = {start: null, done: [], tops: []};
  const stamp = () => { probe.start = performance.now(); };
  document.addEventListener('keydown', stamp, true);
  document.addEventListener('pointerdown', stamp, true);
  new MutationObserver(() => {
    const start = probe.start;
    requestAnimationFrame(() => {
      probe.done.push(performance.now() - start);
      probe.tops.push(canvas.getBoundingClientRect().top);
    });
  }).observe(canvas, {attributes: true, attributeFilter: ['data-frame']});
}"""

_CANVAS_JS = """(sel) => { const c = document.querySelector(sel);
  return {backing: c.width, shown: c.clientWidth, ratio: window.devicePixelRatio, frame: Number(c.dataset.frame)}; }"""


def frames(page, root: str = EXPLORER) -> int:
    """How many figures the explorer under ``root`` has drawn."""
    return page.evaluate(_CANVAS_JS, f"{root} .attn-figure")["frame"]


def settled_frames(page, root: str = EXPLORER, quiet_ms: int = 400, timeout_ms: int = 15000) -> int:
    """The frame count once the explorer has drawn nothing new for ``quiet_ms``.

    Right after a cell runs, the explorer may still redraw on its own (its first size from the
    ResizeObserver, the table arriving): a count taken then is not the one key presses add to.
    """
    return page.evaluate("""async ([sel, quiet, timeout]) => {
      const canvas = document.querySelector(sel), start = performance.now();
      let last = canvas.dataset.frame, since = performance.now();
      while (performance.now() - since < quiet) {
        if (performance.now() - start > timeout) throw new Error(`the explorer kept redrawing for ${timeout} ms`);
        await new Promise((done) => setTimeout(done, 50));
        if (canvas.dataset.frame !== last) { last = canvas.dataset.frame; since = performance.now(); }
      }
      return Number(last);
    }""", [f"{root} .attn-figure", quiet_ms, timeout_ms])


def canvas_box(page, root: str = EXPLORER) -> dict:
    """The canvas's backing-store width, its shown CSS width and the page's devicePixelRatio."""
    return page.evaluate(_CANVAS_JS, f"{root} .attn-figure")


def readout(page, root: str = EXPLORER) -> list:
    """The readout's lines as written (textContent: the space that ends the English first line is kept)."""
    return page.locator(f"{root} .attn-readout > div").all_text_contents()


def timed_action(page, action) -> tuple:
    """Run ``action()`` (one key press or click); return (ms until the new figure is painted, its top y)."""
    count = page.evaluate("() => window.__attnLatency.done.length")
    action()
    page.wait_for_function("(n) => window.__attnLatency.done.length > n", arg=count, polling=10)
    probe = page.evaluate("() => window.__attnLatency")
    return probe["done"][-1], probe["tops"][-1]


def press(page, selector: str, key: str, times: int = 1) -> None:
    control = page.locator(selector).first
    control.scroll_into_view_if_needed()
    control.focus()
    for _ in range(times):
        control.press(key)


def explorer_latencies(page, root: str = EXPLORER, moves: int = 10, seq_len_from: int = 40) -> dict:
    """Milliseconds per action: head_dim arrow keys, scale clicks, seq_len arrow keys (a new seq_len each,
    from ``seq_len_from`` up: the larger ones cost the most).

    Each action waits for its figure before the next. Returns ``{"head_dim": [...], "scale":
    [...], "seq_len": [...], "tops": [...]}``, ``tops`` the canvas's top y after every action.
    """
    head_dim, seq_len = page.locator(f"{root} .attn-head-dim"), page.locator(f"{root} .attn-seq-len")
    buttons = page.locator(f"{root} .attn-scale button")
    seq_len.evaluate("(input, value) => { input.value = String(value); input.dispatchEvent(new Event('input')); }",
                     min(seq_len_from, 64 - moves))
    page.evaluate(_PROBE_JS, f"{root} .attn-figure")
    return timed_moves(page, head_dim, buttons, seq_len, moves)


def timed_moves(page, head_dim, buttons, seq_len, moves: int) -> dict:
    """``moves`` rounds of: head_dim one arrow key (right, left, …), the other scale button, seq_len one
    step up (a new seq_len: both curves recomputed), each timed by :func:`timed_action` (the page's
    latency probe must be installed). Both explorers are driven by it: this module's, and the old
    kernel round trip (``lab_page.explorer_latencies``)."""
    result = {"head_dim": [], "scale": [], "seq_len": [], "tops": []}

    def record(name, action):
        ms, top = timed_action(page, action)
        result[name].append(ms)
        result["tops"].append(top)

    for i in range(moves):
        key = "ArrowRight" if i % 2 == 0 else "ArrowLeft"
        head_dim.focus()
        record("head_dim", lambda: head_dim.press(key))
        record("scale", lambda: buttons.nth((i + 1) % 2).click())
        seq_len.focus()
        record("seq_len", lambda: seq_len.press("ArrowRight"))
    return result


# --- by keyboard alone: Tab to each control, keys to work it; what had focus, its ring, what the live region said ---

# One move per control, as a keyboard user makes them: head_dim up two steps, Tab past "unscaled" to the scaled
# button and press Space, Tab to seq_len and up three, Tab to the mask and Space (64 → 256, scaled, 8 → 11, causal).
KEYBOARD_WALK = ("ArrowRight", "ArrowRight", "Tab", "Tab", "Space", "Tab", "ArrowRight", "ArrowRight", "ArrowRight",
                 "Tab", "Space")
WALK_ORDER = ["attn-head-dim", "false", "true", "attn-seq-len", "attn-causal"]  # the controls, in Tab order

# window.__attnFocused(): what has focus, which control (its class, or a scale button's data-scaled), its outline and
# its accessible label; window.__attnKeyboard: each control focused in the explorer, each thing its live region said.
_WATCH_JS = """(root) => {
  window.__attnFocused = (el = document.activeElement) => {
    const ring = getComputedStyle(el);
    return {control: el.className || el.dataset.scaled || el.tagName, ring: ring.outlineStyle,
            width: parseFloat(ring.outlineWidth), label: el.getAttribute('aria-label') ||
            (el.labels && el.labels[0] ? el.labels[0].textContent.trim() : el.textContent.trim())};
  };
  const log = window.__attnKeyboard = {focus: [], heard: []};
  const explorer = document.querySelector(root), status = explorer.querySelector('.attn-status');
  explorer.addEventListener('focusin', (event) => log.focus.push(window.__attnFocused(event.target)));
  new MutationObserver(() => log.heard.push(status.textContent)).observe(status, {childList: true,
                                                                                   characterData: true});
}"""

_STATE_JS = """(root) => { const e = document.querySelector(root);
  return {head_dim: Number(e.querySelector('.attn-head-dim + output').textContent),
          scaled: e.querySelector('.attn-scale button[data-scaled=true]').getAttribute('aria-pressed') === 'true',
          seq_len: Number(e.querySelector('.attn-seq-len + output').textContent),
          causal: e.querySelector('.attn-causal').checked}; }"""


def state(page, root: str = EXPLORER) -> dict:
    """The explorer's setting as its controls show it (``sharpness.measure``'s keywords)."""
    return page.evaluate(_STATE_JS, root)


def walked(before: dict, head_dims, max_seq_len: int) -> dict:
    """Where :data:`KEYBOARD_WALK` takes the explorer from ``before``."""
    index = min(head_dims.index(before["head_dim"]) + 2, len(head_dims) - 1)
    return {"head_dim": head_dims[index], "scaled": True, "seq_len": min(before["seq_len"] + 3, max_seq_len),
            "causal": not before["causal"]}


def keyboard_walk(page, root: str = EXPLORER, from_top: bool = False, most_tabs: int = 120) -> dict:
    """Drive the explorer by keyboard alone (:data:`KEYBOARD_WALK`). Its first control is reached with Tab: from the
    top of the page (``from_top``), else from the element before it (focused first, as a reader clicks near it).
    Returns what had focus at each step (its outline, its label) and what the live region said once the moves
    settled."""
    first = f"{root} .attn-head-dim"
    on_first = "(sel) => document.activeElement === document.querySelector(sel)"
    if from_top:
        page.evaluate("() => document.activeElement && document.activeElement.blur()")
    else:
        page.locator(first).scroll_into_view_if_needed()
        page.locator(first).focus()
        page.keyboard.press("Shift+Tab")
    for _ in range(most_tabs):
        page.keyboard.press("Tab")
        if page.evaluate(on_first, first):
            break
    else:
        raise AssertionError(f"{most_tabs} presses of Tab never reached the explorer's head_dim slider")
    page.evaluate(_WATCH_JS, root)
    reached = page.evaluate("() => window.__attnFocused()")
    for key in KEYBOARD_WALK:
        page.keyboard.press(key)
    page.wait_for_function("() => window.__attnKeyboard.heard.length > 0", timeout=10000)
    page.wait_for_timeout(800)  # longer than the live region's pause: a late announcement would show
    log = page.evaluate("() => window.__attnKeyboard")
    return {"focus": [reached, *log["focus"]], "heard": log["heard"]}


def assert_walked(log: dict, heard: str) -> None:
    """The keyboard walk met every control in order, each labelled, each with a visible ring; the live region said
    ``heard`` last, and said it at a pace a screen reader follows (once or twice for the whole burst of moves)."""
    assert [f["control"] for f in log["focus"]] == WALK_ORDER, log["focus"]
    for step in log["focus"]:
        assert step["ring"] not in ("none", "") and step["width"] >= 2 and step["label"], step
    assert log["heard"] and log["heard"][-1] == heard, log["heard"]
    assert len(log["heard"]) <= 2, f"the live region spoke {len(log['heard'])} times for one burst: {log['heard']}"
