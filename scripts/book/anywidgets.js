// The static edition's own widget host: renders the notebook's anywidgets with no kernel.
//
// scripts/build_book.py replaces every anywidget view of the executed notebook by
// <div class="anywidget-view" data-model-id="…"> and embeds each model's state (buffers as
// base64) and module in <script type="application/json" id="anywidget-state">. This
// script gives each view what anywidget gives it in JupyterLab: a model with get / set /
// on / off / save_changes, on which set() fires "change:<name>" as Backbone does, and the
// module's render({model, el}). Nothing is fetched: the page works from file://.

const STATE = JSON.parse(document.getElementById("anywidget-state").textContent);

class StaticModel {
  constructor(state) {
    this.state = state;
    this.handlers = new Map();
  }
  get(name) { return this.state[name]; }
  set(name, value) {
    if (this.state[name] === value) return;
    this.state[name] = value;
    for (const handler of this.handlers.get(`change:${name}`) || []) handler();
    for (const handler of this.handlers.get("change") || []) handler();
  }
  on(event, handler) {
    for (const name of event.split(" ")) {
      if (!this.handlers.has(name)) this.handlers.set(name, new Set());
      this.handlers.get(name).add(handler);
    }
  }
  off(event, handler) {
    for (const name of (event || "").split(" ")) this.handlers.get(name)?.delete(handler);
  }
  save_changes() {} // no kernel to tell
  send() {}
}

function bytes(base64) {
  const binary = atob(base64), out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return new DataView(out.buffer); // what ipywidgets hands a widget for a bytes trait
}

function withBuffers({state, buffers = []}) {
  const full = structuredClone(state);
  for (const {path, data} of buffers) {
    let target = full;
    for (const key of path.slice(0, -1)) target = target[key];
    target[path[path.length - 1]] = bytes(data);
  }
  return full;
}

const modules = new Map(); // module text → its exports, imported once per page
function load(source) {
  if (!modules.has(source)) {
    const url = URL.createObjectURL(new Blob([source], {type: "text/javascript"}));
    modules.set(source, import(url));
  }
  return modules.get(source);
}

async function show(view) {
  const model = new StaticModel(withBuffers(STATE.models[view.dataset.modelId]));
  const style = document.createElement("style");
  style.textContent = model.get("_css") || "";
  document.head.append(style);
  const widget = (await load(model.get("_esm"))).default;
  const {initialize, render} = typeof widget === "function" ? await widget() : widget;
  await initialize?.({model});
  await render({model, el: view});
}

await Promise.all([...document.querySelectorAll(".anywidget-view")].map(show));
document.documentElement.dataset.widgetsReady = "true";
