// The pages' accessibility checks shared by the browser tests.
import assert from 'node:assert/strict';

// assertContrast: every visible text of the page has a contrast ratio of at
// least 4.5:1 against its background (WCAG 2 AA for normal text); disabled
// controls are exempt, as WCAG allows.
export async function assertContrast(page) {
  const low = await page.evaluate(() => {
    const rgb = (c) => (c.match(/[\d.]+/g) || []).map(Number);
    const lum = ([r, g, b]) => {
      const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
      return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
    };
    const background = (el) => {
      for (let e = el; e; e = e.parentElement) {
        const c = rgb(getComputedStyle(e).backgroundColor);
        if (c.length === 3 || c[3] > 0) return c.slice(0, 3);
      }
      return [255, 255, 255];
    };
    const out = [];
    for (const el of document.querySelectorAll('body *')) {
      const text = [...el.childNodes].filter((n) => n.nodeType === 3).map((n) => n.textContent).join('').trim();
      const box = el.getBoundingClientRect();
      if (!text || el.closest('[disabled]') || box.width === 0 || el.closest('[hidden]')) continue;
      const style = getComputedStyle(el);
      if (style.visibility === 'hidden' || Number(style.opacity) < 1) continue;
      const [a, b] = [lum(rgb(style.color)), lum(background(el))];
      const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
      if (ratio < 4.5) out.push(`${el.tagName}#${el.id}.${el.className} "${text.slice(0, 30)}": ${ratio.toFixed(2)}`);
    }
    return out;
  });
  assert.deepEqual(low, [], 'text contrast at least 4.5:1');
}

// assertControlsNamed: every visible button, select, input and textarea
// inside selector has a text name: its text, aria-label, aria-labelledby or
// a <label>.
export async function assertControlsNamed(page, selector = 'body') {
  const unnamed = await page.locator(selector).evaluate((root) => {
    const named = (el) => {
      if (el.getAttribute('aria-label')?.trim()) return true;
      const by = el.getAttribute('aria-labelledby');
      if (by && by.split(/\s+/).some((id) => document.getElementById(id)?.textContent.trim())) return true;
      if (el.tagName === 'BUTTON') return el.textContent.trim() !== '';
      return [...(el.labels || [])].some((l) => l.textContent.trim() !== '');
    };
    return [...root.querySelectorAll('button, select, input, textarea')]
      .filter((el) => el.getClientRects().length > 0 && !named(el))
      .map((el) => `${el.tagName}#${el.id}.${el.className}`);
  });
  assert.deepEqual(unnamed, [], 'every control has a text name');
}
