// The marking page's words: the page's language's messages (coursekit's catalogue, ids marking.* and locale.*),
// sent inline by the server (coursekit.marking.handlers) as "words". say(id, values) fills a message's {name}
// placeholders as Python's str.format does ({{ and }} are literal braces); sayN(id, n, values) picks a plural's form by
// the catalogue's Plural-Forms (the rules of one or two forms; n is also {n}). An id the catalogue lacks is shown as
// itself, so a test walking the page in the pseudo-locale finds it.
"use strict";
(function () {
  const initial = JSON.parse(document.getElementById("initial").textContent);
  const words = initial.words || {};
  const fill = (text, values) => text.replace(/\{\{|\}\}|\{(\w+)\}/g, (whole, name) =>
    name === undefined ? whole[0] : String(values && name in values ? values[name] : whole));
  // "nplurals=1; plural=0;" or "nplurals=2; plural=(n != 1);" (the languages the course speaks); another rule: form 0
  const rule = words[""] || "";
  const formOf = (n) => /nplurals=2; plural=\(n != 1\)/.test(rule) ? (n === 1 ? 0 : 1) : 0;
  function say(id, values) {
    const text = words[id];
    return typeof text === "string" ? fill(text, values) : id;
  }
  function sayN(id, n, values) {
    const forms = words[id];
    if (!Array.isArray(forms)) return id;
    return fill(forms[Math.min(formOf(n), forms.length - 1)], Object.assign({ n: n }, values));
  }
  window.markingWords = { say: say, sayN: sayN, lang: initial.lang };
})();
