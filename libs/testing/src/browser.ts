import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import puppeteer, { Browser, Page } from 'puppeteer-core';

/**
 * The machine's Chromium: CHROMIUM_PATH (npm test sets it, installing Debian's chromium where it
 * is missing: tools/infra/chromium.mjs), else `chromium` on PATH. A missing browser fails the
 * browser tests with a message that says how to get one; it is never skipped silently.
 */
export function chromiumPath(): string {
  const configured = process.env.CHROMIUM_PATH;
  if (configured) return configured;
  for (const bin of ['chromium', 'chromium-browser', 'google-chrome']) {
    const where = spawnSync('sh', ['-c', `command -v ${bin}`], { encoding: 'utf8' }).stdout.trim();
    if (where) return where;
  }
  throw new Error(
    "no Chromium found: run `node tools/infra/chromium.mjs` (installs Debian's chromium) or set CHROMIUM_PATH",
  );
}

/** A headless Chromium for one test file; close it in afterAll. */
export async function launchBrowser(): Promise<Browser> {
  return puppeteer.launch({
    executablePath: chromiumPath(),
    headless: true,
    // Root in CI and containers: Chromium's sandbox needs user namespaces it may not have.
    args: ['--no-sandbox', '--disable-dev-shm-usage', '--lang=en-US'],
  });
}

/** Where screenshots go: SCREENSHOT_DIR, else .run/screenshots (both ignored by git). */
export function screenshotDir(): string {
  return process.env.SCREENSHOT_DIR ?? path.resolve(__dirname, '../../../.run/screenshots');
}

/** Saves a full-page PNG named `<name>.png` and returns its path, for a person to look at. */
export async function saveScreenshot(page: Page, name: string): Promise<string> {
  const dir = screenshotDir();
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${name.replace(/[^a-z0-9._-]+/gi, '-')}.png`);
  await page.screenshot({ path: file as `${string}.png`, fullPage: true });
  return file;
}
