// KaTeX for _ext/content/katex_math.py: one Node.js process renders every formula of a build.
//
//   node katex_render.js <KaTeX's package folder>
//
// The folder is node_modules/katex, at the version package.json pins. The protocol is one line
// of JSON per request on stdin, {"latex": "...", "options": {...KaTeX's options}}, answered by
// one line of JSON on stdout, in the order asked:
//   {"html": "..."}                  the formula, typeset;
//   {"html": "...", "error": "..."}  a formula KaTeX rejects (a parse error, or loose input under
//                                    strict: "error"): its message, and the HTML KaTeX makes for
//                                    it with throwOnError false (the source, marked as an error);
//   {"error": "..."}                 anything else that went wrong.
// The process ends when stdin closes.
"use strict";

const readline = require("readline");
const katex = require(process.argv[2]);

const render = (request) => {
  const options = request.options || {};
  try {
    return { html: katex.renderToString(request.latex, { ...options, throwOnError: true }) };
  } catch (error) {
    if (!(error instanceof katex.ParseError)) {
      return { error: String(error && error.stack ? error.stack : error) };
    }
    const html = katex.renderToString(request.latex, { ...options, throwOnError: false });
    return { html, error: error.message };
  }
};

const answer = (line) => {
  try {
    return render(JSON.parse(line));
  } catch (error) {
    return { error: `cannot read the request ${line.slice(0, 200)}: ${error.message}` };
  }
};

readline
  .createInterface({ input: process.stdin, crlfDelay: Infinity })
  .on("line", (line) => process.stdout.write(`${JSON.stringify(answer(line))}\n`));
