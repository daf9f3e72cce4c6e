import { existsSync, statSync } from 'node:fs';
import { Browser } from 'puppeteer-core';
import { launchBrowser, saveScreenshot } from './browser';

describe('the test browser: a real headless Chromium', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('when a page with a script and a form is loaded, then it runs the script, types, and saves a screenshot', async () => {
    const page = await browser.newPage();
    await page.setViewport({ width: 640, height: 360 });
    await page.setContent(
      '<label for="n">Name</label><input id="n"><p id="out"></p>' +
        '<script>document.getElementById("n").addEventListener("input", (e) => {' +
        'document.getElementById("out").textContent = "Hello, " + e.target.value; });</script>',
    );
    await page.type('#n', 'Jane');
    expect(await page.$eval('#out', (e) => e.textContent)).toBe('Hello, Jane');
    const file = await saveScreenshot(page, 'test-browser-smoke');
    expect(existsSync(file)).toBe(true);
    expect(statSync(file).size).toBeGreaterThan(1000);
  });
});
