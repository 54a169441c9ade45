// The style rules no page of a site can use, removed from its style bundles (bookbuild/optimize.py, trim_stylesheets).
//
//   node unused_rules.js PURGECSS_FOLDER SITE_FOLDER BUNDLE...
//
// PurgeCSS keeps a rule when every class, id, element and attribute its selector names occurs as a
// word in the site's pages or scripts: a class a script adds (a menu's "show", a solution's
// "toggle-hidden", the dark mode's "dark") occurs in that script, so its rules stay. Prints one
// JSON object, each bundle's path to its trimmed text; the build writes the files.
"use strict";
const fs = require("fs");
const path = require("path");

const [purgecssFolder, site, ...bundles] = process.argv.slice(2);
const { PurgeCSS } = require(purgecssFolder);

function files(folder) {
  return fs.readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const where = path.join(folder, entry.name);
    return entry.isDirectory() ? files(where) : [where];
  });
}

(async () => {
  const content = files(site).filter((file) => /\.(html|m?js)$/.test(file));
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
