/**
 * A fetched feedback folder's pages, opened in Lab's HTML viewer as they are on disk now.
 *
 * Fetch Feedback writes a page released again (written answers marked since) over the old file, under
 * the same name. Lab would only bring forward a tab already open on it, showing what it read when it
 * was opened, so an open document of that page is reverted (read from disk again) first.
 *
 * The page is opened untrusted, that is without scripts, which it does not need to be read. Its cell
 * outputs are the student's own code's, and a trusted viewer would run them with the Lab's origin.
 */
import type { JupyterFrontEnd } from '@jupyterlab/application';
import type { IDocumentManager } from '@jupyterlab/docmanager';

const VIEWER = 'HTML Viewer';

interface IListed {
  readonly type: string;
  readonly name: string;
  readonly path: string;
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

/** Every page of the fetched feedback `folder` (`<assignment>/feedback/<timestamp>`), as it is now. */
export async function showFeedback(app: JupyterFrontEnd, documents: IDocumentManager, folder: string): Promise<void> {
  for (const path of await feedbackPages(app, folder)) {
    await showPage(app, documents, path);
  }
}
