import type { Browser, Page } from 'puppeteer-core';
import { http, launchBrowser } from '@payments/testing';
import { CallbackReceiver } from './callback-receiver';
import { aShop, TestShop } from './merchant';
import { TEST_OPS_TOKEN, TestStack } from './stack';
import { withPayoutMethods } from './transfers';

export interface ConsoleOperator {
  id: string;
  token: string;
}

/**
 * The operators' console in a real headless Chromium against the real stack: a shop with payout
 * methods, a named operator and a viewer, and the helpers every console spec signs in with.
 * With `callbacks`, the shop's callbacks go to a receiver that answers 500 until a test mends it.
 */
export class ConsoleBrowser {
  private constructor(
    readonly stack: TestStack,
    readonly browser: Browser,
    readonly shop: TestShop,
    readonly operator: ConsoleOperator,
    readonly viewer: ConsoleOperator,
    readonly receiver: CallbackReceiver | undefined,
  ) {}

  /** `checkout`: the stack serves hosted pages too (card payments on the page). */
  static async start(o: {
    shopName: string;
    extraEnv: Record<string, string>;
    callbacks?: boolean;
    checkout?: boolean;
  }) {
    const stack = await TestStack.start({ extraEnv: o.extraEnv, ...(o.checkout ? { checkout: true } : {}) });
    let receiver: CallbackReceiver | undefined;
    try {
      const shop = await aShop(stack.gateway!.url, o.shopName);
      if (o.callbacks) {
        receiver = await CallbackReceiver.start();
        receiver.mode = 500;
        const withCallbacks = await http('PATCH', `${stack.backoffice!.url}/ops/v1/shops/${shop.shopId}/settings`, {
          token: TEST_OPS_TOKEN,
          body: { callbackUrl: receiver.url },
        });
        expect(withCallbacks.status).toBe(200);
      }
      // Each payout test stands alone: the shop's payout methods are there from the start.
      await withPayoutMethods(stack.gateway!.url, shop.shopId);
      const create = async (name: string, role: string): Promise<ConsoleOperator> => {
        const res = await http('POST', `${stack.backoffice!.url}/ops/v1/operators`, {
          token: TEST_OPS_TOKEN,
          body: { name, role },
        });
        expect(res.status).toBe(201);
        return res.body;
      };
      const operator = await create('Dana Operator', 'operator');
      const viewer = await create('Vic Viewer', 'viewer');
      const browser = await launchBrowser();
      return new ConsoleBrowser(stack, browser, shop, operator, viewer, receiver);
    } catch (err) {
      await receiver?.stop();
      await stack.stop();
      throw err;
    }
  }

  async stop(): Promise<void> {
    await this.browser.close();
    await this.receiver?.stop();
    await this.stack.stop();
  }

  url(path = ''): string {
    return `${this.stack.backoffice!.url}/ops/console${path}`;
  }

  async signIn(page: Page, token: string): Promise<void> {
    await page.goto(this.url('/sign-in'));
    await page.type('#token', token);
    await Promise.all([page.waitForNavigation(), page.click('button[type="submit"]')]);
  }

  /** The page's session cookie and CSRF token, as its own script would send them. */
  async credentialsOf(page: Page): Promise<{ cookie: string; csrf: string }> {
    const cookies = await page.cookies();
    const session = cookies.find((c) => c.name === 'ops_session')!;
    const csrf = await page.$eval('meta[name="csrf-token"]', (m) => m.getAttribute('content')!);
    return { cookie: `ops_session=${session.value}`, csrf };
  }
}
