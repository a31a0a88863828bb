// Debian's Chromium for the browser tests, through playwright-core.
import { join } from 'node:path';
import { chromium } from 'playwright-core';

// launchChromium starts Chromium headless with a fresh profile in tmp
// (CHROMIUM: another binary), registers its close in cleanups, and resolves
// to { context, page }. Into problems go any request to another origin than
// base and, on page, any page error, console error or CSP report.
export async function launchChromium({ tmp, base, problems, cleanups }) {
  const context = await chromium.launchPersistentContext(join(tmp, 'profile'), {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
      '--disable-component-update', '--no-first-run'],
    viewport: { width: 1280, height: 900 },
  });
  cleanups.unshift(() => context.close());
  context.on('request', (req) => {
    const url = new URL(req.url());
    if (!['data:', 'blob:'].includes(url.protocol) && url.origin !== base) {
      problems.push(`request to another origin: ${req.url()}`);
    }
  });
  const page = context.pages()[0] || (await context.newPage());
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('console', (msg) => {
    if ((msg.type() === 'error' && !/^Failed to load resource/.test(msg.text()))
      || /Content Security Policy/i.test(msg.text())) {
      problems.push(`console ${msg.type()}: ${msg.text()}`);
    }
  });
  return { context, page };
}
