/**
 * One click on "(view feedback)" in nbgrader's Assignment List opens the fetched feedback page, as
 * it is on disk now.
 *
 * nbgrader turns that link into `filebrowser:go-to-path` on the feedback folder
 * (<assignment>/feedback/<timestamp>), which only moves the file browser: the student then had to
 * find the HTML file, open it and press "Trust HTML". This plugin watches the command registry for
 * that command on such a folder and opens the folder's pages in Lab's HTML viewer.
 *
 * Fetch Feedback writes a page released again (written answers marked since) over the old file, under
 * the same name. Lab would only bring forward a tab already open on it, showing what it read when it
 * was opened, so an open document of that page is reverted (read from disk again) first.
 *
 * The page is opened untrusted, that is without scripts, which it does not need to be read. Its cell
 * outputs are the student's own code's, and a trusted viewer would run them with the Lab's origin.
 */
import type { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { IDocumentManager } from '@jupyterlab/docmanager';

const NAME = 'attention-feedback';
const FEEDBACK_FOLDER = /(^|\/)feedback\/[^/]+\/?$/;
const VIEWER = 'HTML Viewer';

interface IExecuted {
  readonly id: string;
  readonly args: { readonly [key: string]: unknown };
}

interface IListed {
  readonly type: string;
  readonly name: string;
  readonly path: string;
}

/** The feedback folder an executed command moved the file browser to, without a trailing slash; else null. */
function feedbackFolder(executed: IExecuted): string | null {
  const path = executed.args?.path;
  if (executed.id !== 'filebrowser:go-to-path' || typeof path !== 'string' || !FEEDBACK_FOLDER.test(path)) {
    return null;
  }
  return path.replace(/\/$/, '');
}

/** The HTML files directly in `folder` (nbgrader writes one page per notebook). */
async function feedbackPages(app: JupyterFrontEnd, folder: string): Promise<string[]> {
  const listing = await app.serviceManager.contents.get(folder, { content: true });
  const items = listing.content as IListed[];
  return items.filter(item => item.type === 'file' && item.name.endsWith('.html')).map(item => item.path);
}

/** Opens `path` in the HTML viewer; a document already open on it (in any viewer) is read from disk again first. */
async function showPage(app: JupyterFrontEnd, documents: IDocumentManager, path: string): Promise<void> {
  const open = documents.findWidget(path, null);
  if (open) {
    await open.context.revert();
  }
  await app.commands.execute('docmanager:open', { path, factory: VIEWER });
}

async function showFeedback(app: JupyterFrontEnd, documents: IDocumentManager, folder: string): Promise<void> {
  for (const path of await feedbackPages(app, folder)) {
    await showPage(app, documents, path);
  }
}

const plugin: JupyterFrontEndPlugin<void> = {
  id: `${NAME}:open-on-view`,
  description: "Opens the feedback page, as it is now, when a student clicks nbgrader's (view feedback).",
  autoStart: true,
  requires: [IDocumentManager],
  activate: (app: JupyterFrontEnd, documents: IDocumentManager) => {
    app.commands.commandExecuted.connect((_, executed) => {
      const folder = feedbackFolder(executed);
      if (folder === null) {
        return;
      }
      showFeedback(app, documents, folder).catch(error => {
        console.error(`${NAME}: could not open the feedback in ${folder}`, error);
      });
    });
  }
};

export default plugin;
