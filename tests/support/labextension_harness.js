// The students' Lab extension, loaded in Node as JupyterLab's page loads a prebuilt extension, then
// driven against a stand-in Lab (tests/unit/test_labextension.py).
//
//   node labextension_harness.js BUILT_FOLDER SCENARIO_JSON
//
// Loading, as the page does: the file named by the built package.json (jupyterlab._build.load) runs
// as a <script>; window._JUPYTERLAB[name] is a module-federation container; init(shareScope) gets
// Lab's shared modules (here @jupyterlab/docmanager, at the installed Lab's version, whose
// IDocumentManager token is a stand-in object); get('./extension') loads the plugin's chunk with a
// <script> tag, as a browser would (a stand-in document runs the file it names).
// Driving: each auto-started plugin is activated on a stand-in app; the scenario's executed commands
// are replayed on the command registry's commandExecuted signal; what the extension asked Lab to
// do is printed as JSON, with the console's warnings and errors.
'use strict';
const fs = require('fs');
const path = require('path');
const vm = require('vm');

const [folder, scenarioJson] = process.argv.slice(-2);
const scenario = JSON.parse(scenarioJson); // { executed: [...], open: [paths], lab: "4.6.6" }
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

const page = { console: console_, setTimeout, clearTimeout, Promise, URL };
page.window = page.self = page;
page.document = {
  currentScript: null,
  createElement: scriptElement,
  getElementsByTagName: () => [],
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
const shareScope = {
  '@jupyterlab/docmanager': {
    [scenario.lab]: { get: () => Promise.resolve(() => ({ IDocumentManager })), from: 'lab', eager: false, loaded: 1 }
  }
};

const asked = [];
const listeners = [];
const app = {
  commands: {
    commandExecuted: { connect: fn => listeners.push(fn) },
    execute: async (id, args) => { asked.push({ execute: id, args }); }
  },
  serviceManager: { contents: { get: async (folderPath, options) => {
    asked.push({ list: folderPath, content: options.content });
    return { content: [
      { type: 'file', name: 'ch04_attention.html', path: `${folderPath}/ch04_attention.html` },
      { type: 'file', name: 'notes.txt', path: `${folderPath}/notes.txt` },
      { type: 'directory', name: 'old.html', path: `${folderPath}/old.html` }
    ] };
  } } }
};
// Lab's document manager: a document open on a path of scenario.open can be reverted (read from disk again).
const documents = {
  findWidget: (docPath, widgetName) => {
    asked.push({ find: docPath, widget: widgetName });
    if (!scenario.open.includes(docPath)) {
      return undefined;
    }
    return { context: { revert: async () => { asked.push({ revert: docPath }); } } };
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
  for (const executed of scenario.executed) {
    listeners.forEach(fn => fn(app.commands, executed));
  }
  await new Promise(resolve => setTimeout(resolve, 50));
  const requires = plugins.map(plugin => (plugin.requires || []).map(token => token.name));
  console.log(JSON.stringify({ ids: plugins.map(plugin => plugin.id), requires, asked, logged }));
})().catch(error => {
  console.error(error);
  process.exit(1);
});
