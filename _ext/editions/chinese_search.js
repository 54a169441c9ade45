// The Chinese edition's search: a query such as 注意力权重 is one "word" to the browser, while
// the index (split by jieba when the site was built) holds 注意力 and 权重. A run of Chinese
// characters is therefore cut into the longest terms the index knows, left to right.
// Sphinx's searchtools.js calls a global splitQuery, defining its own only when none is defined;
// this file declares that global (so it cannot wrap itself in a strict-mode function) and reads
// Search._index, both in CONTRIBUTING's table of other packages' private parts.
/* global Search */
// eslint-disable-next-line no-var, no-unused-vars, strict
var splitQuery = (query) => {
  const known = (word) => {
    const index = typeof Search === "undefined" ? null : Search._index;
    return Boolean(index) && (word in index.terms || word in index.titleterms);
  };
  const words = [];
  query.split(/[^\p{Letter}\p{Number}_\p{Emoji_Presentation}]+/gu).forEach((word) => {
    if (!word) return;
    if (!/\p{Script=Han}/u.test(word) || known(word)) {
      words.push(word);
      return;
    }
    for (let start = 0, end; start < word.length; start = end) {
      for (end = word.length; end > start + 1 && !known(word.slice(start, end)); end -= 1);
      words.push(word.slice(start, end));
    }
  });
  return words;
};
