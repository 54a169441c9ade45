// The book's JavaScript, in one dialect: ES2020, const/let only, arrow functions for callbacks,
// double quotes. The four browser scripts run as classic scripts (each wraps itself in a
// strict-mode function); the build's scripts (_ext/content/katex_render.js, which renders the math, and
// bookbuild/unused_rules.js, which trims the style bundles) are Node.js CommonJS scripts, strict as a whole.
// tests/repo/test_quality.py runs ESLint from node_modules/, which npm ci installs from package-lock.json.
import js from "@eslint/js";
import globals from "globals";

const rules = {
  "no-var": "error",
  "prefer-const": "error",
  "prefer-arrow-callback": "error",
  "arrow-body-style": ["error", "as-needed"],
  "prefer-spread": "error",
  quotes: ["error", "double", { avoidEscape: true }],
  eqeqeq: "error",
  "no-unused-vars": ["error", { args: "none" }],
  "no-use-before-define": ["error", { functions: false, variables: false }],
};

// One dialect of JavaScript for a set of files: where they run, and how they declare strict mode.
const dialect = (files, sourceType, environment, strict) => ({
  files,
  languageOptions: { ecmaVersion: 2020, sourceType, globals: environment },
  linterOptions: { reportUnusedDisableDirectives: "error" },
  rules: { ...rules, strict: ["error", strict] },
});

export default [
  js.configs.recommended,
  // the site's scripts, in the browser
  dialect(
    [
      "code/selfattn/figures/figures.js",
      "_ext/content/live_code_static/live-code.js",
      "_static/lazy-sections.js",
      "_ext/editions/chinese_search.js",
    ],
    "script",
    globals.browser,
    "function",
  ),
  // the build's scripts, under Node.js
  dialect(["_ext/content/katex_render.js", "bookbuild/unused_rules.js"], "commonjs", globals.node, "global"),
];
