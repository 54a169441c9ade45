// The style rules no page of a site can use, removed from its style bundles (bookbuild/optimize.py,
// trim_stylesheets).
//
//   node unused_rules.js PURGECSS_FOLDER BUNDLE... < CONTENT.json
//
// CONTENT.json lists the site's pages and scripts. PurgeCSS keeps a rule when every class, id,
// element and attribute its selector names occurs as a word in one of them: a class a script adds
// (a menu's "show", a solution's "toggle-hidden", the dark mode's "dark") occurs in that script,
// so its rules stay. Prints one JSON object, each bundle's path to its trimmed text; the build
// writes the files.
"use strict";
const fs = require("fs");

const [purgecssFolder, ...bundles] = process.argv.slice(2);
const { PurgeCSS } = require(purgecssFolder);

(async () => {
  const content = JSON.parse(fs.readFileSync(0, "utf8"));
  const trimmed = {};
  for (const bundle of bundles) {
    const [purged] = await new PurgeCSS().purge({ content, css: [bundle] });
    trimmed[bundle] = purged.css;
  }
  process.stdout.write(JSON.stringify(trimmed));
})().catch((error) => {
  console.error(error.message);
  process.exit(1);
});
