/**
 * nbgrader's English, said in another language where it is shown: each text node that reads one of its sentences
 * (whole, spaces around it kept) gets the sentence of the same key in the other table.
 */

/** nbgrader's English → ours, from two tables with the same keys. */
export function wordsFor<T extends { readonly [key: string]: string }>(english: T, ours: T): Map<string, string> {
  return new Map(Object.entries(english).map(([key, sentence]) => [sentence, ours[key as keyof T]]));
}

/** Each text under `root` that is one of nbgrader's sentences, said in `words`' language. */
export function sayWords(root: Element, words: Map<string, string>): void {
  const walker = root.ownerDocument.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let text = walker.nextNode(); text !== null; text = walker.nextNode()) {
    const shown = text.nodeValue ?? '';
    const said = words.get(shown.trim());
    if (said !== undefined && said !== shown.trim()) {
      text.nodeValue = shown.replace(shown.trim(), said);
    }
  }
}
