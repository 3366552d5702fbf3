/**
 * A fetched feedback folder's pages, opened in Lab's HTML viewer as they are on disk now, and the tabs already
 * open on an assignment's feedback kept current when new feedback of it arrives.
 *
 * Fetch Feedback writes a page released again (written answers marked since) over the old file, under
 * the same name. Lab would only bring forward a tab already open on it, showing what it read when it
 * was opened, so an open document of that page is reverted (read from disk again) first.
 *
 * A new submission's feedback is another folder (`<assignment>/feedback/<timestamp>/`) holding a page of the same
 * name: a tab open on the older page would go on showing the older score beside a second tab of the same name. When
 * the new feedback arrives, each tab open on an older page of that assignment is replaced by the new page, in its
 * place (`updateOpenFeedback`), so the notification's button then finds it open and reuses it.
 *
 * The page writes each date in the course's time zone, its offset said, on a `<time datetime>` element; the viewer
 * shows each in the student's own zone and language (`localiseTimes`): the page's frame is of Lab's origin (untrusted
 * pages keep `allow-same-origin`), so Lab may write into it, each time it is drawn.
 *
 * The page is opened untrusted, that is without scripts, which it does not need to be read. Its cell
 * outputs are the student's own code's, and a trusted viewer would run them with the Lab's origin.
 */
import type { JupyterFrontEnd } from '@jupyterlab/application';
import type { IDocumentManager } from '@jupyterlab/docmanager';

import { dateText } from './texts';

const VIEWER = 'HTML Viewer';

interface IListed {
  readonly type: string;
  readonly name: string;
  readonly path: string;
}

/** A tab of Lab's main area showing a document. */
interface IOpenDocument {
  readonly id: string;
  readonly context: { readonly path: string; revert(): Promise<void> };
  close(): void;
}

/** The HTML files directly in `folder` (nbgrader writes one page per notebook). */
async function feedbackPages(app: JupyterFrontEnd, folder: string): Promise<string[]> {
  const listing = await app.serviceManager.contents.get(folder, { content: true });
  const items = listing.content as IListed[];
  return items.filter(item => item.type === 'file' && item.name.endsWith('.html')).map(item => item.path);
}

const LOCALISED = 'attentionLocalised'; // a viewer's iframe whose drawings are localised (its dataset key)

/** The course's `<time data-course-time>` elements of a drawn page, in the student's zone and the page's language. */
function localise(frame: HTMLIFrameElement): void {
  const page = frame.contentDocument;
  const language = page?.querySelector('[lang]')?.getAttribute('lang');
  for (const time of Array.from(page?.querySelectorAll('time[data-course-time][datetime]') ?? [])) {
    const when = time.getAttribute('datetime') ?? '';
    if (when) {
      time.textContent = dateText(when, language);
    }
  }
}

/** Every drawing of the viewer `widget` (Lab draws the page again when it is read again) localised. */
function localiseTimes(widget: unknown): void {
  const frame = (widget as { node?: HTMLElement } | undefined)?.node?.querySelector?.('iframe');
  if (!frame || frame.dataset[LOCALISED]) {
    return;
  }
  frame.dataset[LOCALISED] = '1';
  frame.addEventListener('load', () => localise(frame));
  if (frame.contentDocument?.readyState === 'complete') {
    localise(frame);
  }
}

/** Opens `path` in the HTML viewer; a document already open on it (in any viewer) is read from disk again first. */
async function showPage(app: JupyterFrontEnd, documents: IDocumentManager, path: string): Promise<void> {
  const open = documents.findWidget(path, null);
  if (open) {
    await open.context.revert();
  }
  localiseTimes(await app.commands.execute('docmanager:open', { path, factory: VIEWER }));
}

/** Every page of the fetched feedback `folder` (`<assignment>/feedback/<timestamp>`), as it is now. */
export async function showFeedback(app: JupyterFrontEnd, documents: IDocumentManager, folder: string): Promise<void> {
  for (const path of await feedbackPages(app, folder)) {
    await showPage(app, documents, path);
  }
}

/** The documents open in Lab's main area on a page of `folder`'s assignment's feedback (`<a>/feedback/<t>/<page>`). */
function openFeedbackPages(app: JupyterFrontEnd, folder: string): IOpenDocument[] {
  const assignment = folder.replace(/\/feedback\/[^/]+$/, '');
  const open: IOpenDocument[] = [];
  for (const widget of app.shell.widgets('main')) {
    const path = (widget as unknown as Partial<IOpenDocument>).context?.path;
    if (typeof path === 'string' && path.startsWith(`${assignment}/feedback/`) && path.endsWith('.html')) {
      open.push(widget as unknown as IOpenDocument);
    }
  }
  return open;
}

/**
 * New feedback in `folder`: a tab open on one of its pages is read again; a tab open on the same page of an older
 * submission is replaced by it, in its place. Tabs of a newer submission than `folder`'s are left alone.
 */
export async function updateOpenFeedback(app: JupyterFrontEnd, folder: string): Promise<void> {
  const open = openFeedbackPages(app, folder);
  if (open.length === 0) {
    return;
  }
  const pages = await feedbackPages(app, folder);
  for (const tab of open) {
    const page = pages.find(path => path.split('/').pop() === tab.context.path.split('/').pop());
    if (tab.context.path === page) {
      localiseTimes(tab);
      await tab.context.revert();
    } else if (page !== undefined && tab.context.path < page) { // nbgrader's timestamps sort as their text
      // in its place, in front only if it was (the student may be at work in another tab)
      const options = { ref: tab.id, mode: 'tab-after', activate: app.shell.currentWidget === (tab as unknown) };
      localiseTimes(await app.commands.execute('docmanager:open', { path: page, factory: VIEWER, options }));
      tab.close();
    }
  }
}
