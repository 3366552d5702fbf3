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
