// The sharpness explorer's view (§4.6): controls, a readout and one canvas figure, in the
// chapter's language: the words come from Python (the model's `words`, attnkit.sharpness.words: attnkit's
// catalogue, the same the PNG shown under grading uses), the readout's sentence among them.
//
// An anywidget module (export default {render}): attnkit.widgets.SharpnessExplorer sends the
// raw q·k table once; every move is computed (./sharpness.js) and drawn here, in the same
// task as the key press, so it is painted in the next display frame with no kernel involved.
// The canvas has the screen's devicePixelRatio; the Chinese words are HTML over it, so the
// page's fonts (the static edition embeds one) draw them. Python joins this file after
// sharpness.js into one module (attnkit.widgets.module_source), dropping the import line.
//
// Hooks for tests and the browser (CSS classes): attn-explorer (root), attn-head-dim and
// attn-seq-len (range inputs), attn-scale (the two buttons), attn-causal (checkbox),
// attn-readout, attn-figure (the canvas; its data-frame attribute counts the frames drawn).

import {curves, entropyFraction, measure, summary, uniformEntropy} from "./sharpness.js";

const WIDTH = 1100, HEIGHT = 360; // CSS px, as the PNG shown under grading
const VIRIDIS = ["#440154", "#482878", "#3e4989", "#31688e", "#26828e",
                 "#1f9e89", "#35b779", "#6ece58", "#b5de2b", "#fde725"]; // 10 even stops
const COLOURS = {false: "#d62728", true: "#1f77b4"}; // matplotlib's tab:red, tab:blue
const ROW_MAX = "#9467bd", ROW_ENTROPY = "#2ca02c"; // tab:purple, tab:green
const HATCH = "#737373"; // over the grey (217, 217, 217) of blocked cells
const TICK_FONT = '10px "DejaVu Sans", Arial, "Helvetica Neue", sans-serif';
const scalings = (w) => [[w.unscaled, false], ["× 1/√head_dim", true]];

// --- layout: where each panel sits for a figure `width` CSS px wide ---------------------

function layout(width) {
  const f = width / WIDTH, top = 44, bottom = HEIGHT - 46;
  const side = Math.min(bottom - top, 276 * f);
  return {
    width, top, bottom,
    heat: {x: 40 * f, y: top, w: side, h: side},
    bar: {x: 40 * f + side + 10 * f, y: top, w: 12 * f, h: side},
    rows: {x: 420 * f, y: top, w: 290 * f, h: bottom - top},
    curve: {x: 790 * f, y: top, w: width - 790 * f - 14 * f, h: bottom - top},
  };
}

// Titles, legends and axis labels: HTML placed over the canvas, made once per layout.
function labels(L, w) {
  const legend = (items) => items.map(([text, colour, style]) =>
    `<span class="attn-key"><i style="border-top: 2px ${style} ${colour}"></i>${text}</span>`).join("");
  return [
    ["attn-title", L.heat.x, 8, L.bar.x + L.bar.w - L.heat.x + 30, w.weights],
    ["attn-title", L.rows.x, 8, L.rows.w, w.rows],
    ["attn-title", L.curve.x, 8, L.curve.w, w.curve],
    ["attn-legend", L.rows.x, L.top + 4, L.rows.w,
      legend([[w.rowMax, ROW_MAX, "solid"], [w.rowEntropy, ROW_ENTROPY, "dashed"]])],
    ["attn-legend attn-legend-low", L.curve.x + 6, L.bottom - 62, L.curve.w,
      legend([[w.unscaled, COLOURS[false], "solid"], ["× 1/√head_dim", COLOURS[true], "solid"],
              [w.uniform, "#808080", "dotted"]])],
    ["attn-axis-label", L.rows.x, L.bottom + 24, L.rows.w, w.query],
    ["attn-axis-label", L.curve.x, L.bottom + 24, L.curve.w, "head_dim"],
    ["attn-axis-label attn-vertical", L.curve.x - 44, L.bottom, L.bottom - L.top, w.entropy],  // turned about its top left
  ];
}

// --- drawing ---------------------------------------------------------------------------

function viridis(value) {
  const x = Math.min(Math.max(value, 0), 1) * (VIRIDIS.length - 1);
  const i = Math.min(Math.floor(x), VIRIDIS.length - 2), t = x - i;
  const [a, b] = [VIRIDIS[i], VIRIDIS[i + 1]].map((hex) => [1, 3, 5].map((k) => parseInt(hex.slice(k, k + 2), 16)));
  return a.map((c, k) => Math.round(c + t * (b[k] - c)));
}

// value → one RGBA pixel (as a little-endian uint32, the byte order of ImageData), 256 steps
const PALETTE = Uint32Array.from({length: 256}, (_, i) => {
  const [r, g, b] = viridis(i / 255);
  return ((255 << 24) | (b << 16) | (g << 8) | r) >>> 0;
});
const GREY = ((255 << 24) | (217 << 16) | (217 << 8) | 217) >>> 0;

function tickStep(span, most) {
  for (const step of [1, 2, 4, 5, 8, 10, 16, 20, 25, 50]) if (span / step <= most) return step;
  return 100;
}

function niceStep(span, most) {
  const raw = span / most, power = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 2.5, 5, 10].map((k) => k * power).find((step) => step >= raw);
}

function text(ctx, value, x, y, align, baseline) {
  ctx.textAlign = align;
  ctx.textBaseline = baseline;
  ctx.fillText(value, x, y);
}

function frame(ctx, r) {
  ctx.strokeStyle = "#000";
  ctx.lineWidth = 0.8;
  ctx.strokeRect(r.x, r.y, r.w, r.h);
}

// Ticks on the left and bottom edges of `r`: y values through `ys`, x values through `xs`.
function ticks(ctx, r, xs, ys) {
  ctx.fillStyle = "#000";
  ctx.font = TICK_FONT;
  ctx.beginPath();
  for (const [px, label] of xs) { ctx.moveTo(px, r.y + r.h); ctx.lineTo(px, r.y + r.h + 4); }
  for (const [py, label] of ys) { ctx.moveTo(r.x - 4, py); ctx.lineTo(r.x, py); }
  ctx.stroke();
  for (const [px, label] of xs) text(ctx, label, px, r.y + r.h + 6, "center", "top");
  for (const [py, label] of ys) text(ctx, label, r.x - 6, py, "right", "middle");
}

// The cells of the weights, hatched where blocked, with values when small; then its frame.
function heatmap(ctx, r, m, cells) {
  const T = m.seqLen, image = cells.ctx.createImageData(T, T), pixels = new Uint32Array(image.data.buffer);
  for (let i = 0; i < T; i++) {
    for (let j = 0; j < T; j++) {
      pixels[i * T + j] = m.causal && j > i ? GREY : PALETTE[Math.round(m.weights[i * T + j] * 255)];
    }
  }
  cells.canvas.width = cells.canvas.height = T;
  cells.ctx.putImageData(image, 0, 0);
  ctx.imageSmoothingEnabled = false; // one flat colour per cell
  ctx.drawImage(cells.canvas, r.x, r.y, r.w, r.h);
  if (m.causal) hatch(ctx, r, T);
  if (T <= 8) annotate(ctx, r, m);
  frame(ctx, r);
}

function heatmapTicks(ctx, r, T) {
  const cell = r.w / T, step = tickStep(T, 16), at = [];
  for (let i = 0; i < T; i += step) at.push(i);
  ticks(ctx, r, at.map((j) => [r.x + (j + 0.5) * cell, String(j)]), at.map((i) => [r.y + (i + 0.5) * cell, String(i)]));
}

// Diagonal lines through the blocked cells (above the diagonal), as the matplotlib figure's hatching.
function hatch(ctx, r, T) {
  const cell = r.w / T;
  ctx.save();
  ctx.beginPath();
  for (let i = 0; i < T - 1; i++) ctx.rect(r.x + (i + 1) * cell, r.y + i * cell, (T - i - 1) * cell, cell);
  ctx.clip();
  ctx.strokeStyle = HATCH;
  ctx.lineWidth = 0.7;
  ctx.beginPath();
  for (let d = -r.h; d < r.w; d += 6) { ctx.moveTo(r.x + d, r.y + r.h); ctx.lineTo(r.x + d + r.h, r.y); }
  ctx.stroke();
  ctx.restore();
}

// Values written in the cells when the matrix is small (≤ 8 × 8), dark on light cells.
function annotate(ctx, r, m) {
  const T = m.seqLen, cell = r.w / T;
  ctx.font = TICK_FONT;
  for (let i = 0; i < T; i++) {
    for (let j = 0; j <= (m.causal ? i : T - 1); j++) {
      const w = m.weights[i * T + j];
      ctx.fillStyle = w > 0.6 ? "#000" : "#fff";
      text(ctx, w.toFixed(2), r.x + (j + 0.5) * cell, r.y + (i + 0.5) * cell, "center", "middle");
    }
  }
}

function colourbar(ctx, r) {
  const gradient = ctx.createLinearGradient(0, r.y + r.h, 0, r.y);
  VIRIDIS.forEach((colour, i) => gradient.addColorStop(i / (VIRIDIS.length - 1), colour));
  ctx.fillStyle = gradient;
  ctx.fillRect(r.x, r.y, r.w, r.h);
  frame(ctx, r);
  ctx.fillStyle = "#000";
  ctx.font = TICK_FONT;
  for (let v = 0; v <= 1.0001; v += 0.2) text(ctx, v.toFixed(1), r.x + r.w + 4, r.y + r.h * (1 - v), "left", "middle");
}

function polyline(ctx, points, colour, dash, marker, size) {
  ctx.strokeStyle = ctx.fillStyle = colour;
  ctx.lineWidth = 1.5;
  ctx.setLineDash(dash);
  ctx.beginPath();
  points.forEach(([x, y], i) => (i ? ctx.lineTo(x, y) : ctx.moveTo(x, y)));
  ctx.stroke();
  ctx.setLineDash([]);
  ctx.beginPath();
  for (const [x, y] of points) {
    if (marker === "square") ctx.rect(x - size, y - size, 2 * size, 2 * size);
    else { ctx.moveTo(x + size, y); ctx.arc(x, y, size, 0, 2 * Math.PI); }
  }
  ctx.fill();
}

const rowX = (r, T) => (i) => r.x + ((i + 0.5) / T) * r.w;
const rowY = (r) => (v) => r.y + r.h * (1 - v / 1.3);

function rowsPanel(ctx, r, m) {
  const px = rowX(r, m.seqLen), py = rowY(r);
  polyline(ctx, Array.from(m.rowMax, (v, i) => [px(i), py(v)]), ROW_MAX, [], "circle", 3);
  polyline(ctx, Array.from(entropyFraction(m), (v, i) => [px(i), py(v)]), ROW_ENTROPY, [5, 3], "square", 2.5);
}

function rowsFrame(ctx, r, T) {
  const px = rowX(r, T), py = rowY(r), step = tickStep(T, 8), xs = [], ys = [];
  frame(ctx, r);
  for (let i = 0; i < T; i += step) xs.push([px(i), String(i)]);
  for (let v = 0; v <= 1.2001; v += 0.2) ys.push([py(v), v.toFixed(1)]);
  ticks(ctx, r, xs, ys);
}

// log2 head_dim across, mean entropy up to a little above the uniform ceiling
function curveAxes(r, seqLen, causal) {
  const ceiling = uniformEntropy(seqLen, causal), top = 1.08 * ceiling + 1e-3;
  const [lo, hi] = [Math.log2(0.7), Math.log2(1500)];
  return {ceiling, top, px: (d) => r.x + ((Math.log2(d) - lo) / (hi - lo)) * r.w, py: (v) => r.y + r.h * (1 - v / top)};
}

function clipped(ctx, r, draw) {
  ctx.save();
  ctx.beginPath();
  ctx.rect(r.x, r.y, r.w, r.h);
  ctx.clip();
  draw();
  ctx.restore();
}

function curveFrame(ctx, r, seqLen, causal, lines, headDims) {
  const {ceiling, top, px, py} = curveAxes(r, seqLen, causal);
  clipped(ctx, r, () => {
    polyline(ctx, [[r.x, py(ceiling)], [r.x + r.w, py(ceiling)]], "#808080", [1.5, 2.5], "none", 0);
    for (const scaled of [false, true]) {
      polyline(ctx, headDims.map((d, i) => [px(d), py(lines[scaled][i])]), COLOURS[scaled], [], "circle", 1.5);
    }
  });
  frame(ctx, r);
  const step = niceStep(top, 5), ys = [];
  const decimals = step >= 1 ? 0 : Number.isInteger(step * 10) ? 1 : 2;
  for (let k = 0; k * step <= top + 1e-9; k++) ys.push([py(k * step), (k * step).toFixed(decimals)]);
  ticks(ctx, r, headDims.filter((_, i) => i % 2 === 0).map((d) => [px(d), String(d)]), ys);
}

// The current setting: an open circle on its curve, in its scaling's colour.
function curveMarker(ctx, r, m) {
  const {px, py} = curveAxes(r, m.seqLen, m.causal);
  clipped(ctx, r, () => {
    ctx.strokeStyle = COLOURS[m.scaled];
    ctx.lineWidth = 2.5;
    ctx.beginPath();
    ctx.arc(px(m.headDim), py(m.meanEntropy), 6, 0, 2 * Math.PI);
    ctx.stroke();
  });
}

// What a head_dim or scale move leaves as it is (ticks, frames, colour bar, curves), drawn once
// per layout, seq_len and mask into an offscreen canvas: a move copies it and draws the rest.
function background(canvas, L, ratio, seqLen, causal, lines, headDims) {
  const [width, height] = [Math.round(L.width * ratio), Math.round(HEIGHT * ratio)];
  if (canvas.width !== width || canvas.height !== height) [canvas.width, canvas.height] = [width, height];
  const ctx = canvas.getContext("2d");
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  ctx.clearRect(0, 0, width, height);
  ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
  heatmapTicks(ctx, L.heat, seqLen);
  colourbar(ctx, L.bar);
  rowsFrame(ctx, L.rows, seqLen);
  curveFrame(ctx, L.curve, seqLen, causal, lines, headDims);
  return canvas;
}

// --- the widget --------------------------------------------------------------------------

function element(tag, className, html) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (html !== undefined) node.innerHTML = html;
  return node;
}

function controls(model, headDims, maxSeqLen, w) {
  const row1 = element("div", "attn-controls"), row2 = element("div", "attn-controls");
  row1.innerHTML = `<label class="attn-control">head_dim <input type="range" class="attn-head-dim"
      min="0" max="${headDims.length - 1}" step="1" aria-label="head_dim"><output></output></label>
    <span class="attn-control">${w.scale}</span><span class="attn-scale" role="group" aria-label="${w.scale}">${
      scalings(w).map(([label, scaled]) => `<button type="button" data-scaled="${scaled}">${label}</button>`).join("")
    }</span>`;
  row2.innerHTML = `<label class="attn-control">seq_len <input type="range" class="attn-seq-len"
      min="2" max="${maxSeqLen}" step="1" aria-label="seq_len"><output></output></label>
    <label class="attn-control"><input type="checkbox" class="attn-causal"> ${w.causal}</label>`;
  const headDim = row1.querySelector(".attn-head-dim"), seqLen = row2.querySelector(".attn-seq-len");
  // JupyterLab's shortcuts skip a key pressed on an element with this attribute (Lumino checks
  // the target itself first): the arrow keys move the sliders, not the notebook's cells
  for (const control of [...row1.querySelectorAll("input, button"), ...row2.querySelectorAll("input")]) {
    control.dataset.lmSuppressShortcuts = "true";
  }
  // the view follows model.set at once (its change event draws); telling the kernel waits until
  // after the next frame, so that the message is never between a key press and its figure
  const commit = (name, value) => {
    model.set(name, value);
    requestAnimationFrame(() => setTimeout(() => model.save_changes(), 0));
  };
  headDim.addEventListener("input", () => commit("head_dim", headDims[Number(headDim.value)]));
  seqLen.addEventListener("input", () => commit("seq_len", Number(seqLen.value)));
  row2.querySelector(".attn-causal").addEventListener("change", (e) => commit("causal", e.target.checked));
  for (const button of row1.querySelectorAll("button")) {
    // on press, not on release: the figure changes in the frame after the button goes down;
    // click stays for the keyboard (Enter, Space), and repeats a value already set otherwise
    const choose = () => commit("scaled", button.dataset.scaled === "true");
    button.addEventListener("pointerdown", (event) => event.button === 0 && choose());
    button.addEventListener("click", choose);
  }
  return [row1, row2];
}

// Controls follow the state (also when Python set it); only what differs is written.
function showControls(root, state, headDims) {
  const put = (node, key, value) => { if (node[key] !== value) node[key] = value; };
  const headDim = root.querySelector(".attn-head-dim"), seqLen = root.querySelector(".attn-seq-len");
  put(headDim, "value", String(headDims.indexOf(state.headDim)));
  put(headDim.nextElementSibling, "textContent", String(state.headDim));
  put(seqLen, "value", String(state.seqLen));
  put(seqLen.nextElementSibling, "textContent", String(state.seqLen));
  put(root.querySelector(".attn-causal"), "checked", state.causal);
  for (const button of root.querySelectorAll(".attn-scale button")) {
    const pressed = String(button.dataset.scaled === String(state.scaled));
    if (button.getAttribute("aria-pressed") !== pressed) button.setAttribute("aria-pressed", pressed);
  }
}

function float64(view) {
  // the view may start at any byte offset: copy, so that the Float64Array is aligned
  const bytes = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
  return new Float64Array(bytes.slice().buffer);
}

function render({model, el}) {
  const root = element("div", "attn-explorer");
  root.lang = model.get("language") === "zh" ? "zh-Hans" : model.get("language"); // fonts and screen readers
  const headDims = model.get("head_dims"), maxSeqLen = model.get("max_seq_len");
  const words = model.get("words");
  const readout = element("div", "attn-readout", "<div></div><div></div>");
  const plot = element("div", "attn-plot"), canvas = element("canvas", "attn-figure");
  const overlay = element("div", "attn-overlay");
  plot.append(canvas, overlay);
  root.append(...controls(model, headDims, maxSeqLen, words), readout, plot);
  el.append(root);
  const cells = {canvas: document.createElement("canvas")};
  cells.ctx = cells.canvas.getContext("2d");
  let table = float64(model.get("scores")), cache = new Map(), L = null, frames = 0, ratio = 0;
  const back = {key: null, canvas: document.createElement("canvas")}; // see background()

  let available = WIDTH; // the root's width, from the ResizeObserver: drawing never reads layout

  function resize() {
    const width = Math.min(WIDTH, Math.floor(available || WIDTH));
    if (L && L.width === width && ratio === window.devicePixelRatio) return;
    L = layout(width);
    ratio = window.devicePixelRatio || 1;
    plot.style.width = canvas.style.width = `${width}px`;
    plot.style.height = canvas.style.height = `${HEIGHT}px`;
    canvas.width = Math.round(width * ratio); // the screen's own pixels: sharp on HiDPI
    canvas.height = Math.round(HEIGHT * ratio);
    overlay.innerHTML = labels(L, words).map(([cls, x, y, w, html]) =>
      `<div class="${cls}" style="left:${x}px; top:${y}px; width:${w}px">${html}</div>`).join("");
  }

  function draw() {
    resize();
    const state = {headDim: model.get("head_dim"), scaled: model.get("scaled"), seqLen: model.get("seq_len"),
                   causal: model.get("causal")};
    const m = measure(table, {...state, index: headDims.indexOf(state.headDim), tableSeqLen: maxSeqLen});
    const lines = curvesFor(state.seqLen, state.causal), backKey = `${state.seqLen} ${state.causal} ${L.width} ${ratio}`;
    if (back.key !== backKey) {
      back.key = backKey;
      background(back.canvas, L, ratio, state.seqLen, state.causal, lines, headDims);
    }
    const ctx = canvas.getContext("2d");
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.clearRect(0, 0, canvas.width, canvas.height);
    ctx.drawImage(back.canvas, 0, 0);
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    heatmap(ctx, L.heat, m, cells);
    rowsPanel(ctx, L.rows, m);
    curveMarker(ctx, L.curve, m);
    summary(m, words).forEach((line, i) => { readout.children[i].textContent = line; });
    showControls(root, state, headDims);
    canvas.dataset.frame = String(++frames);
  }

  const curvesFor = (seqLen, causal) => {
    const key = `${seqLen} ${causal}`;
    if (!cache.has(key)) cache.set(key, curves(table, headDims, seqLen, causal, maxSeqLen));
    return cache.get(key);
  };
  // Every seq_len's curves, a few at a time while the page is idle (about 40 ms in all), so a
  // seq_len move finds them ready; a move before they are finds them computed on the spot.
  let idle = null;
  const later = window.requestIdleCallback || ((task) => setTimeout(task, 16));
  function precompute(seqLen = 2) {
    if (seqLen === 2) (window.cancelIdleCallback || clearTimeout)(idle); // a new table restarts it
    idle = later(() => {
      for (let t = seqLen; t < seqLen + 4 && t <= maxSeqLen; t++) { curvesFor(t, false); curvesFor(t, true); }
      if (seqLen + 4 <= maxSeqLen) precompute(seqLen + 4);
    });
  }
  const onScores = () => {
    table = float64(model.get("scores"));
    cache = new Map();
    back.key = null;
    draw();
    precompute();
  };
  const names = ["head_dim", "scaled", "seq_len", "causal"].map((name) => `change:${name}`);
  names.forEach((name) => model.on(name, draw));
  model.on("change:scores", onScores);
  const resized = new ResizeObserver(([entry]) => {
    available = entry.contentRect.width;
    if (Math.min(WIDTH, Math.floor(available)) !== L.width) draw();
  });
  resized.observe(root);
  const screen = window.matchMedia(`(resolution: ${window.devicePixelRatio || 1}dppx)`);
  const moved = () => draw(); // dragged to a screen of another pixel ratio
  screen.addEventListener("change", moved);
  draw();
  precompute();
  return () => {
    (window.cancelIdleCallback || clearTimeout)(idle);
    names.forEach((name) => model.off(name, draw));
    model.off("change:scores", onScores);
    resized.disconnect();
    screen.removeEventListener("change", moved);
  };
}

export default {render};
