// The students' Lab extension, loaded in Node as JupyterLab's page loads a prebuilt extension, then
// driven against a stand-in Lab (tests/unit/test_labextension.py).
//
//   node labextension_harness.js BUILT_FOLDER SCENARIO_JSON
//
// Loading, as the page does: the file named by the built package.json (jupyterlab._build.load) runs
// as a <script>; window._JUPYTERLAB[name] is a module-federation container; init(shareScope) gets
// Lab's shared modules (here @jupyterlab/docmanager and @jupyterlab/services, at the installed Lab's
// versions: a stand-in IDocumentManager token, a stand-in ServerConnection); get('./extension') loads
// the plugins' chunk with a <script> tag, as a browser would (a stand-in document runs the file it names).
// Driving: each auto-started plugin is activated on a stand-in app; the scenario's executed commands
// are replayed on the command registry's commandExecuted signal, then its events (the student's
// server's) on the event stream, one after another; then, when told to, the button of the last
// notification is clicked. Printed as JSON: what the extension asked Lab to do (`asked`), the
// requests it sent to its server (`requests`), both in the order made (`timeline`), what the student's server
// remembers they were told (`memory`: the scenario's, answered as `told`, and what the extension POSTed back), and
// the console's warnings and errors. With `validate` ({url, body, answer}), the
// request nbgrader's Validate sends is made through Lab's ServerConnection as nbgrader makes it (after the
// plugins), and what came back to the caller is printed too (`validated`); with `nbgraderFetch`, nbgrader's
// Fetch of an assignment likewise, and with `nbgraderSubmit` its Submit (`submitted`: what came back, or the error).
// The documents of `open` are tabs of Lab's main area (a revert, a close, a save and the refresh button of an open
// Assignment List, `listOpen`, are noted in `asked`); those of `dirty` have unsaved changes, those of `saveFails`
// cannot be saved.
'use strict';
const fs = require('fs');
const path = require('path');
const vm = require('vm');

const [folder, scenarioJson] = process.argv.slice(-2);
// { executed: [...], open: [paths], versions: {"@jupyterlab/docmanager": "4.6.6", ...}, events: [...],
//   statuses: [...] (the server's answer when Lab opens), listing: {...} (nbgrader's answer to Fetch Feedback),
//   memory: {...} (what the student's server says they were told, when Lab opens), closed: bool (the student closed the notifications), click: bool,
//   language: the student's language the server answers, listOpen: bool (nbgrader's Assignment List is open),
//   current: the path of the tab in front }
const scenario = Object.assign({ executed: [], open: [], events: [], statuses: [], memory: {} }, JSON.parse(scenarioJson));
const built = JSON.parse(fs.readFileSync(path.join(folder, 'package.json'), 'utf8'));
const BASE = `http://lab.test/lab/extensions/${built.name}/`; // where Lab serves the folder
const logged = { warn: [], error: [] };
const console_ = {
  log: () => {},
  warn: (...args) => logged.warn.push(args.map(String).join(' ')),
  error: (...args) => logged.error.push(args.map(String).join(' '))
};

function scriptElement() {
  const attributes = {};
  return {
    tagName: 'SCRIPT',
    setAttribute: (key, value) => { attributes[key] = value; },
    getAttribute: key => attributes[key]
  };
}

const memory = new Map(Object.entries(scenario.memory)); // the student's server's record of what they were told
const page = { console: console_, setTimeout, clearTimeout, Promise, URL };
page.window = page.self = page;
// nbgrader's Assignment List, when open, is only its refresh button here (its words are said in Chromium: test_hub.py)
const refreshButton = { click: () => asked.push({ refresh: 'assignment list' }) };
page.document = {
  currentScript: null,
  createElement: scriptElement,
  getElementsByTagName: () => [],
  getElementById: () => null,
  querySelector: selector =>
    (scenario.listOpen && selector === '#nbgrader-assignment-list #refresh_assignments_list' ? refreshButton : null),
  head: { appendChild: script => setTimeout(() => runScript(script), 0) }
};
vm.createContext(page);

// A <script src=...> of the folder: run in the page, then its onload (or onerror: no such file).
function runScript(script) {
  const file = path.join(folder, new URL(script.src).pathname.slice(new URL(BASE).pathname.length));
  if (!fs.existsSync(file)) {
    script.onerror?.({ type: 'error', target: script });
    return;
  }
  page.document.currentScript = script;
  vm.runInContext(fs.readFileSync(file, 'utf8'), page, { filename: file });
  page.document.currentScript = null;
  script.onload?.({ type: 'load', target: script });
}

const IDocumentManager = { name: '@jupyterlab/docmanager:IDocumentManager' };
const BASE_URL = 'http://lab.test/user/s1/';
const requests = [];
const timeline = []; // requests and commands in the order they were made
// Lab's ServerConnection: each request is noted (path under the server, method, JSON body) and answered as the
// student's server would: the statuses (attention-feedback/status) or nbgrader's listing after Fetch Feedback.
const ServerConnection = {
  makeRequest: async (url, init, settings) => {
    const path = url.slice(settings.baseUrl.length);
    requests.push({ path, method: init.method, body: init.body === undefined ? null : JSON.parse(init.body) });
    timeline.push(`request ${path}`);
    if (path === 'attention-feedback/status' && init.method === 'POST') {
      Object.entries(JSON.parse(init.body).told).forEach(([key, value]) => memory.set(key, value));
      return new Response(JSON.stringify({ told: Object.fromEntries(memory) }), { status: 200 });
    }
    const answer = path === 'attention-feedback/status'
      ? { statuses: scenario.statuses, language: scenario.language, told: scenario.memory }
      : path.startsWith('assignments/validate') ? scenario.validate.answer
      : path === 'assignments/fetch' || path === 'assignments/submit' ? { success: true } : scenario.listing;
    return new Response(JSON.stringify(answer ?? {}), { status: 200 });
  }
};
const modules = { '@jupyterlab/docmanager': { IDocumentManager }, '@jupyterlab/services': { ServerConnection } };
const shareScope = Object.fromEntries(Object.entries(modules).map(([name, exported]) => [name, {
  [scenario.versions[name]]: { get: () => Promise.resolve(() => exported), from: 'lab', eager: false, loaded: 1 }
}]));

const asked = [];
const listeners = [];
const commands = new Map();
let notifications = 0;
const streamed = [];
const app = {
  commands: {
    commandExecuted: { connect: fn => listeners.push(fn) },
    addCommand: (id, options) => commands.set(id, options),
    execute: async (id, args) => {
      asked.push({ execute: id, args });
      timeline.push(`execute ${id}`);
      if (commands.has(id)) {
        return commands.get(id).execute(args);
      }
      if (id === 'apputils:notify') {
        return `n${++notifications}`;
      }
      if (id === 'docmanager:open') { // Lab opens a tab on the path unless one is open, and shows it
        return tabs.find(tab => tab.context.path === args.path) ?? openTab(args.path);
      }
      return id === 'apputils:update-notification' ? !scenario.closed : undefined; // closed: Lab no longer has it
    }
  },
  serviceManager: {
    serverSettings: { baseUrl: BASE_URL },
    events: { stream: { connect: fn => streamed.push(fn) } },
    contents: { get: async (folderPath, options) => {
      asked.push({ list: folderPath, content: options.content });
      return { content: [
        { type: 'file', name: 'ch04_attention.html', path: `${folderPath}/ch04_attention.html` },
        { type: 'file', name: 'notes.txt', path: `${folderPath}/notes.txt` },
        { type: 'directory', name: 'old.html', path: `${folderPath}/old.html` }
      ] };
    } }
  }
};
// The tabs of Lab's main area: a document open on each path of scenario.open, which can be reverted (read from disk
// again) or closed.
const tabs = [];
function openTab(docPath) {
  const model = { dirty: (scenario.dirty || []).includes(docPath) };
  const save = async () => {
    timeline.push(`save ${docPath}`);
    asked.push({ save: docPath });
    if ((scenario.saveFails || []).includes(docPath)) {
      throw new Error('disk full');
    }
    model.dirty = false;
  };
  const tab = {
    id: `tab${tabs.length + 1}`,
    context: { path: docPath, model, save, revert: async () => { asked.push({ revert: docPath }); } },
    close: () => { asked.push({ close: docPath }); tabs.splice(tabs.indexOf(tab), 1); }
  };
  tabs.push(tab);
  return tab;
}
scenario.open.forEach(openTab);
app.shell = {
  widgets: area => (area === 'main' ? tabs : [])[Symbol.iterator](),
  get currentWidget() { return tabs.find(tab => tab.context.path === scenario.current) ?? null; } // the tab in front
};
// Lab's document manager: finds the document open on a path.
const documents = {
  findWidget: (docPath, widgetName) => {
    asked.push({ find: docPath, widget: widgetName });
    return tabs.find(tab => tab.context.path === docPath);
  }
};
const services = new Map([[IDocumentManager, documents]]);

function activate(plugin) {
  const needed = (plugin.requires || []).map(token => {
    if (!services.has(token)) {
      throw new Error(`the stand-in Lab has no ${token && token.name}`);
    }
    return services.get(token);
  });
  plugin.activate(app, ...needed);
}

(async () => {
  runScript(Object.assign(scriptElement(), { src: BASE + built.jupyterlab._build.load }));
  const container = page._JUPYTERLAB[built.name];
  await container.init(shareScope);
  const module = (await container.get(built.jupyterlab._build.extension))();
  const exported = module.default;
  const plugins = Array.isArray(exported) ? exported : [exported];
  plugins.filter(plugin => plugin.autoStart).forEach(activate);
  const settle = () => new Promise(resolve => setTimeout(resolve, 30));
  await settle();
  for (const executed of scenario.executed) {
    listeners.forEach(fn => fn(app.commands, executed));
  }
  for (const event of scenario.events) {
    streamed.forEach(fn => fn(app.serviceManager.events, event));
    await settle();
  }
  if (scenario.click) {  // the button of the last notification shown or updated
    const last = asked.filter(step => /^apputils:(notify|update-notification)$/.test(step.execute)).pop();
    const button = (last.args.options || last.args).actions[0];
    // Lab runs a button's command and logs its failure, as here
    await app.commands.execute(button.commandId, button.args)
      .catch(error => console_.error(`Failed to executed '${button.commandId}': ${error}`));
  }
  if (scenario.nbgraderFetch) {  // the Assignment List's Fetch, as nbgrader sends it
    const body = JSON.stringify({ course_id: 'c1', assignment_id: scenario.nbgraderFetch });
    await ServerConnection.makeRequest(BASE_URL + 'assignments/fetch', { method: 'POST', body }, app.serviceManager.serverSettings);
  }
  let submitted = null;
  if (scenario.nbgraderSubmit) {  // the Assignment List's Submit, as nbgrader sends it
    const body = JSON.stringify({ course_id: 'c1', assignment_id: scenario.nbgraderSubmit });
    submitted = await ServerConnection.makeRequest(BASE_URL + 'assignments/submit', { method: 'POST', body },
      app.serviceManager.serverSettings).then(response => response.json(), error => ({ error: String(error) }));
  }
  let validated = null;
  if (scenario.validate) {  // as nbgrader's code calls it: the shared object's makeRequest, looked up now
    const { url, body } = scenario.validate;
    const init = body === undefined ? { method: 'POST' } : { method: 'POST', body: JSON.stringify(body) };
    validated = await (await ServerConnection.makeRequest(BASE_URL + url, init, app.serviceManager.serverSettings)).json();
  }
  await settle();
  const requires = plugins.map(plugin => (plugin.requires || []).map(token => token.name));
  const left = Object.fromEntries(memory);
  console.log(JSON.stringify({ ids: plugins.map(plugin => plugin.id), requires, asked, requests, timeline, memory: left,
                               logged, validated, submitted, tabs: tabs.map(tab => tab.context.path) }));
})().catch(error => {
  console.error(error);
  process.exit(1);
});
