// Code run inside the console's page by the browser tests (page.evaluate takes it as source text: the test
// program is type-checked without the DOM library).

/** Navigation timing and the console's own "interactive" mark, in ms from navigation start. */
export const FIRST_SCREEN_TIMING = `(() => {
  const nav = performance.getEntriesByType('navigation')[0];
  const mark = performance.getEntriesByName('console:interactive')[0];
  return { interactive: mark ? mark.startTime : Infinity, domInteractive: nav.domInteractive, responseEnd: nav.responseEnd };
})()`;

/** How many CSS pixels the page is wider than the viewport (> 0: sideways scrolling). */
export const SIDEWAYS_OVERFLOW = 'document.documentElement.scrollWidth - window.innerWidth';

/** Text (trimmed) and tag of the focused element. */
export const FOCUSED =
  '({ text: document.activeElement?.textContent?.trim() ?? "", tag: document.activeElement?.tagName ?? "" })';

/**
 * Accessibility problems on the visible page: controls without an accessible name, and text under WCAG AA
 * contrast (4.5:1) against its first opaque background.
 */
export const ACCESSIBILITY_PROBLEMS = `(() => {
  const found = [];
  for (const el of document.querySelectorAll('input, select, textarea, button, a[href]')) {
    if (el.closest('dialog:not([open])') || el.offsetParent === null) continue;
    const label = el.labels && el.labels[0] ? el.labels[0].textContent : '';
    const name = label || el.getAttribute('aria-label') || (el.tagName === 'BUTTON' || el.tagName === 'A' ? el.textContent : '');
    if (!name || !name.trim()) found.push(el.tagName.toLowerCase() + '#' + el.id + ' has no accessible name');
  }
  const rgb = (c) => (c.match(/[\\d.]+/g) || []).map(Number);
  const lum = ([r, g, b]) => {
    const f = (v) => ((v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const background = (el) => {
    for (; el; el = el.parentElement) {
      const c = rgb(getComputedStyle(el).backgroundColor);
      if (c.length === 3 || (c.length === 4 && c[3] > 0.9)) return c.slice(0, 3);
    }
    return [255, 255, 255];
  };
  for (const el of document.querySelectorAll('main *, header *')) {
    if (![...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim())) continue;
    if (el.offsetParent === null || el.disabled) continue;
    const fg = lum(rgb(getComputedStyle(el).color));
    const bg = lum(background(el));
    const ratio = (Math.max(fg, bg) + 0.05) / (Math.min(fg, bg) + 0.05);
    if (ratio < 4.5) found.push('low contrast ' + ratio.toFixed(2) + ' on "' + el.textContent.trim().slice(0, 30) + '"');
  }
  return found;
})()`;
