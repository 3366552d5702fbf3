/**
 * nbgrader's Validate dialog in the validated notebook's language.
 *
 * nbgrader's Lab extension shows Validate's results (the notebook toolbar's button and the Assignment
 * List's) in a dialog it words in English — "Validation Results", "The following cell failed:" and the
 * cell's source — around what the course's server says in the notebook's language
 * (coursekit/plugins/validation.py). Neither nbgrader nor Lab offers a hook into that dialog, so this
 * module does two things, in this one place:
 *
 * - it watches nbgrader's request, a call of Lab's shared `ServerConnection.makeRequest` to
 *   `assignments/validate`, and notes, before nbgrader reads the answer, the notebook's language (the
 *   answer's `language`; else the notebook's own `metadata.edition.language`, read through Lab's
 *   contents API) and each failing cell's chapter name (the answer's `failed[i].name`);
 * - when nbgrader's dialog (`#validation-message`) appears, it says nbgrader's sentences
 *   (NBGRADER_WORDS, which tests/unit/test_labextension.py finds in nbgrader's installed build and
 *   server) in that language and shows each failing cell by its name instead of its source.
 *
 * What nbgrader decides (passed or failed, which cells) is never changed, nor the request.
 */
import type { JupyterFrontEnd } from '@jupyterlab/application';
import { ServerConnection } from '@jupyterlab/services';

import { DEFAULT_LANGUAGE, Language, NBGRADER_WORDS, textsOf } from './texts';

const VALIDATE = /\/assignments\/validate(\?|$)/;
const WATCHED = Symbol.for('attention-feedback:validate'); // on makeRequest once it is wrapped: wrap once

/** What the latest Validate answered: the notebook's language (null: unknown) and the failing cells' names. */
export interface IValidated {
  readonly language: Language | null;
  readonly names: readonly string[];
}

function isLanguage(value: unknown): value is Language {
  return value === 'zh' || value === 'en';
}

/** The notebook a Validate request is about: its URL's `path` (the toolbar's), else its JSON body's (the list's). */
export function requestedPath(url: string, init: RequestInit | undefined): string | null {
  const fromUrl = new URL(url, 'http://lab.invalid/').searchParams.get('path');
  if (fromUrl) {
    return fromUrl;
  }
  try {
    const body = typeof init?.body === 'string' ? JSON.parse(init.body) : null;
    return typeof body?.path === 'string' ? body.path : null;
  } catch {
    return null;
  }
}

/** The sentences of nbgrader's dialog in `language`: nbgrader's English → the language's. */
export function wordsFor(language: Language): Map<string, string> {
  const ours = textsOf(language).validation;
  return new Map(Object.entries(NBGRADER_WORDS).map(([key, english]) => [english, ours[key as keyof typeof ours]]));
}

/** Each text under `root` that is one of nbgrader's sentences, said in `words`' language. */
function sayWords(root: Element, words: Map<string, string>): void {
  const walker = root.ownerDocument.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let text = walker.nextNode(); text !== null; text = walker.nextNode()) {
    const said = words.get((text.nodeValue ?? '').trim());
    if (said !== undefined) {
      text.nodeValue = said;
    }
  }
}

export class ValidationWords {
  private validated: IValidated = { language: null, names: [] };

  constructor(private readonly app: JupyterFrontEnd) {}

  get last(): IValidated {
    return this.validated;
  }

  /** Wrap Lab's shared makeRequest (the one nbgrader's code calls) once: Validate's answers are noted first. */
  watchRequests(): void {
    const connection = ServerConnection as unknown as { makeRequest: typeof ServerConnection.makeRequest };
    const original = connection.makeRequest as typeof ServerConnection.makeRequest & { [WATCHED]?: boolean };
    if (original[WATCHED]) {
      return;
    }
    const wrapped = async (url: string, init: RequestInit, settings: ServerConnection.ISettings) => {
      const response = await original(url, init, settings);
      if (VALIDATE.test(url.split('#')[0])) {
        await this.note(url, init, response.clone());
      }
      return response;
    };
    connection.makeRequest = Object.assign(wrapped, { [WATCHED]: true });
  }

  async note(url: string, init: RequestInit | undefined, response: Response): Promise<void> {
    this.validated = { language: null, names: [] };
    try {
      const answer = await response.json();
      const value = typeof answer?.value === 'string' ? JSON.parse(answer.value) : answer?.value ?? {};
      const failed: unknown[] = Array.isArray(value?.failed) ? value.failed : [];
      const names = failed.map(entry => {
        const name = (entry as { name?: unknown } | null)?.name;
        return typeof name === 'string' ? name : '';
      });
      const language = isLanguage(value?.language) ? value.language : await this.languageOf(requestedPath(url, init));
      this.validated = { language, names };
    } catch (error) {
      console.warn('attention-feedback: could not read what Validate answered', error);
    }
  }

  /** A notebook's edition language from its metadata (Chinese when it names none); null when it cannot be read. */
  private async languageOf(path: string | null): Promise<Language | null> {
    if (path === null) {
      return null;
    }
    const model = await this.app.serviceManager.contents.get(path, { type: 'notebook', content: true });
    const edition = (model.content?.metadata as { edition?: { language?: unknown } } | undefined)?.edition;
    return isLanguage(edition?.language) ? edition.language : DEFAULT_LANGUAGE;
  }

  /** Say nbgrader's dialog (`dialog`: its node) in the noted language; each failing cell by its name. */
  frame(dialog: Element): void {
    const message = dialog.querySelector('#validation-message');
    const { language, names } = this.validated;
    if (message === null || language === null) {
      return;
    }
    const words = wordsFor(language);
    sayWords(dialog, words);
    // Lab renders the dialog's title with React once the dialog is on the page: say it (and anything else) when it is
    new MutationObserver(() => sayWords(dialog, words)).observe(dialog, { childList: true, subtree: true });
    if (message.classList.contains('validation-failed')) {
      // each failure: a paragraph, then the cell's source and the error, each in a .jp-RenderedText
      const rendered = Array.from(message.children).filter(child => child.classList.contains('jp-RenderedText'));
      rendered.forEach((block, index) => {
        const name = index % 2 === 0 ? names[index / 2] : '';
        const source = block.querySelector('pre');
        if (name && source !== null) {
          source.textContent = name;
          source.classList.add('attention-feedback-cell-name');
        }
      });
    }
  }

  /** Frame every Validate dialog Lab attaches to the page from now on. */
  watchDialogs(document: Document): void {
    new MutationObserver(records => {
      for (const record of records) {
        record.addedNodes.forEach(node => {
          if (node instanceof Element && node.querySelector('#validation-message') !== null) {
            this.frame(node);
          }
        });
      }
    }).observe(document.body, { childList: true });
  }
}
