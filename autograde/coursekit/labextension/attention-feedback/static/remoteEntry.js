// A JupyterLab extension written by hand, with no build step: one click on "(view feedback)" in
// nbgrader's Assignment List opens the fetched feedback page.
//
// nbgrader turns that link into `filebrowser:go-to-path` on the feedback folder
// (<assignment>/feedback/<timestamp>), which only moves the file browser: the student then had to find
// the HTML file, open it and press "Trust HTML". This plugin watches the command registry for that
// command on such a folder and opens the folder's pages in Lab's HTML viewer.
//
// The page is opened untrusted, that is without scripts, which it does not need to be read. Its cell
// outputs are the student's own code's, and a trusted viewer would run them with the Lab's origin.
//
// How Lab loads it: the server lists this folder's package.json (jupyterlab._build) among the
// federated extensions; Lab's page loads `load`, then treats window._JUPYTERLAB[name] as a webpack
// module-federation container: `init(shareScope)`, then `get("./extension")` returns a factory whose
// module's default export is the list of plugins. This plugin needs no shared module, so the
// container is these two functions.
(function () {
  'use strict';

  const NAME = 'attention-feedback';
  const FEEDBACK_FOLDER = /(^|\/)feedback\/[^/]+\/?$/;

  async function openPages(app, folder) {
    const listing = await app.serviceManager.contents.get(folder, { content: true });
    const pages = listing.content.filter(item => item.type === 'file' && item.name.endsWith('.html'));
    for (const page of pages) {
      await app.commands.execute('docmanager:open', { path: page.path, factory: 'HTML Viewer' });
    }
  }

  const plugin = {
    id: `${NAME}:open-on-view`,
    description: "Opens the feedback page when a student clicks nbgrader's (view feedback).",
    autoStart: true,
    activate: app => {
      app.commands.commandExecuted.connect((_, executed) => {
        const path = (executed.args && executed.args.path) || '';
        if (executed.id !== 'filebrowser:go-to-path' || !FEEDBACK_FOLDER.test(path)) {
          return;
        }
        openPages(app, path.replace(/\/$/, '')).catch(error => {
          console.error(`${NAME}: could not open the feedback in ${path}`, error);
        });
      });
    }
  };

  const containers = (window._JUPYTERLAB = window._JUPYTERLAB || {});
  containers[NAME] = {
    init: () => Promise.resolve(),
    get: module => {
      if (module !== './extension') {
        return Promise.reject(new Error(`${NAME} has no module ${module}`));
      }
      return Promise.resolve(() => ({ __esModule: true, default: [plugin] }));
    }
  };
})();
