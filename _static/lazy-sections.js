// The theme gives each code block and output that scrolls a tab stop as the page loads, so a
// keyboard can scroll it (pydata-sphinx-theme's addTabStopsToScrollableElements), and -1 to the
// rest. A collapsed solution (any folded admonition) is not laid out then (lazy-sections.css), so
// nothing in it scrolls. When one opens, each block in it is measured the theme's way.
(() => {
  "use strict";
  const SCROLLABLE = "pre, .cell_output > .output, .pst-scrollable-table-container";

  const opened = (changes) => {
    for (const { target } of changes) {
      if (!target.matches(".admonition.toggle") || target.classList.contains("toggle-hidden")) continue;
      for (const block of target.querySelectorAll(SCROLLABLE)) {
        const scrolls = block.scrollWidth > block.clientWidth || block.scrollHeight > block.clientHeight;
        block.tabIndex = scrolls ? 0 : -1;
      }
    }
  };

  const watch = () =>
    new MutationObserver(opened).observe(document.body, {
      subtree: true,
      attributes: true,
      attributeFilter: ["class"],
    });
  // Deferred on a chapter page (its body is parsed by now); the search page runs its scripts at once.
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", watch);
  else watch();
})();
