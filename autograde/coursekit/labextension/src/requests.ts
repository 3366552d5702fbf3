/**
 * What nbgrader's own requests answered, noted before nbgrader reads it; what must happen before some are sent.
 *
 * nbgrader's Lab extension calls Lab's shared `ServerConnection.makeRequest` for everything it asks its server
 * (Validate, the Assignment List's Fetch, ...) and offers no hook before or after it. `watchAnswers` wraps that one
 * function, once for the whole page: each answer whose URL matches a watched pattern is handed, as a copy, to its
 * listener, which runs before the caller gets the answer; a listener's failure is only logged. `beforeRequests`
 * runs a hook before a matching request is sent (./saving.ts: unsaved notebooks saved first); a hook that throws
 * stops the request, and the caller gets its error. The request and the answer nbgrader reads are never changed.
 */
import { ServerConnection } from '@jupyterlab/services';

const WATCHES = Symbol.for('attention-feedback:answers'); // on makeRequest once it is wrapped: its watches

export type AnswerListener = (url: string, init: RequestInit | undefined, response: Response) => Promise<void>;
export type RequestHook = (url: string, init: RequestInit | undefined) => Promise<void>;

interface IWatch {
  readonly pattern: RegExp;
  readonly listener?: AnswerListener;
  readonly before?: RequestHook;
}

type MakeRequest = typeof ServerConnection.makeRequest & { [WATCHES]?: IWatch[] };

/** Lab's shared makeRequest, wrapped on the first call: every later call only adds its watch. */
function watches(): IWatch[] {
  const connection = ServerConnection as unknown as { makeRequest: MakeRequest };
  const found = connection.makeRequest[WATCHES];
  if (found !== undefined) {
    return found;
  }
  const original = connection.makeRequest;
  const added: IWatch[] = [];
  const wrapped = async (url: string, init: RequestInit, settings: ServerConnection.ISettings) => {
    const matching = added.filter(each => each.pattern.test(url.split('#')[0]));
    for (const watch of matching) {
      await watch.before?.(url, init);
    }
    const response = await original(url, init, settings);
    for (const watch of matching) {
      await watch.listener?.(url, init, response.clone()).catch(error =>
        console.warn('attention-feedback: could not read what the server answered', error));
    }
    return response;
  };
  connection.makeRequest = Object.assign(wrapped, { [WATCHES]: added });
  return added;
}

/** `listener` is given each answer to a request whose URL (less its fragment) matches `pattern`. */
export function watchAnswers(pattern: RegExp, listener: AnswerListener): void {
  watches().push({ pattern, listener });
}

/** `hook` runs before each request whose URL (less its fragment) matches `pattern` is sent; if it throws, the request
 * is not sent and its caller gets the error. */
export function beforeRequests(pattern: RegExp, hook: RequestHook): void {
  watches().push({ pattern, before: hook });
}
