import type { Page } from 'puppeteer-core';

/**
 * Submits the form `formId` in every page at the same moment, as a payer with several tabs
 * would, and answers the statuses of the POSTs themselves (a navigation's final answer follows
 * a 303). The forms are submitted by script: a click in a background tab waits for a frame that
 * never comes.
 */
export async function submitAtOnce(pages: Page[], formId: string): Promise<number[]> {
  const submit = `document.getElementById(${JSON.stringify(formId)}).requestSubmit(document.getElementById('submit'))`;
  const posted: number[] = [];
  for (const page of pages)
    page.on('response', (r) => {
      if (r.request().method() === 'POST') posted.push(r.status());
    });
  await Promise.all([
    ...pages.map((page) => page.waitForNavigation().catch(() => undefined)),
    ...pages.map((page) => page.evaluate(submit)),
  ]);
  return posted;
}
