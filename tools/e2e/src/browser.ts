import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { eventually, linksIn, type SmtpSink } from '@availability/testing';

/** The system's Chromium (Debian's `chromium` package); tests never download a browser. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Headless Chromium as the tests drive it. Background networking, component updates and sync stay
 * off: the browser talks to the platform on loopback and to nothing else.
 */
export async function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: string[] }>;
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core's serious and critical findings on the page as it is now (WCAG 2.1 AA rules and best practices). */
export async function seriousAccessibilityViolations(page: Page): Promise<Array<{ id: string; impact: string | null; help: string; targets: string[] }>> {
  // Evaluated by the test driver rather than added as a script, which the portal's CSP rightly refuses.
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(): Promise<{ violations: AxeViolation[] }> } }).axe;
    return (await axe.run()).violations;
  });
  return violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => ({ id: violation.id, impact: violation.impact, help: violation.help, targets: violation.nodes.map((node) => node.target.join(' ')) }));
}

/**
 * Screenshots of the pages for the documentation: written where `PORTAL_SCREENSHOTS_DIR` points
 * (`npm run docs:portal` points it at docs/images/portal), and skipped otherwise.
 */
export async function screenshot(page: Page, name: string): Promise<void> {
  const directory = process.env.PORTAL_SCREENSHOTS_DIR;
  if (!directory) return;
  mkdirSync(directory, { recursive: true });
  await page.screenshot({ path: join(directory, `${name}.png`), fullPage: true });
}

/** The two sizes every page is checked and pictured at: a desk and a phone. */
export const PORTAL_VIEWPORTS = {
  desk: { width: 1280, height: 800 },
  phone: { width: 390, height: 844 },
} as const;

/** What is wider than the window: the document itself, or a table wider than the box it sits in. */
export async function pageOverflow(page: Page): Promise<string[]> {
  // Evaluated in the page, as a string: this file is compiled without the DOM's types.
  return page.evaluate(`(() => {
    const found = [];
    const { scrollWidth } = document.documentElement;
    if (scrollWidth > window.innerWidth) found.push('document ' + scrollWidth + ' in ' + window.innerWidth);
    for (const table of document.querySelectorAll('table')) {
      const box = table.parentElement;
      if (table.offsetWidth > box.clientWidth) found.push('table ' + table.offsetWidth + ' in ' + box.clientWidth);
    }
    return found;
  })()`);
}

/**
 * The page as it is now, at a desk's size and a phone's: axe-core's serious and critical findings and
 * anything wider than the window, each named with the page and size; pictured at each size for the
 * documentation. The page is left at the size it had.
 */
export async function pageProblems(page: Page, name: string): Promise<string[]> {
  await page.waitForLoadState('networkidle');
  const before = page.viewportSize();
  const problems: string[] = [];
  for (const [size, viewport] of Object.entries(PORTAL_VIEWPORTS)) {
    await page.setViewportSize(viewport);
    for (const violation of await seriousAccessibilityViolations(page)) problems.push(`${name} (${size}): ${violation.impact} ${violation.id}: ${violation.help} at ${violation.targets.join(', ')}`);
    for (const what of await pageOverflow(page)) problems.push(`${name} (${size}): wider than the window: ${what}`);
    await screenshot(page, `${name}.${size}`);
  }
  if (before) await page.setViewportSize(before);
  return problems;
}

/** Signs in as the owner of `email` by the link the platform e-mails, as a person would; the page is left on the link. */
export async function signInByEmailedLink(context: BrowserContext, portalUrl: string, smtp: SmtpSink, email: string, audience: 'portal' | 'worker'): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`${portalUrl}${audience === 'worker' ? '/worker/sign-in' : '/sign-in'}`);
  const before = smtp.to(email).length;
  await page.getByLabel('E-mail address').fill(email);
  await page.getByRole('button', { name: 'E-mail me a sign-in link' }).click();
  await page.getByText('a sign-in link is on its way').waitFor();
  const mail = await eventually(() => smtp.to(email)[before] ?? false, 15_000, `the sign-in e-mail to ${email}`);
  const link = linksIn(mail.text).find((candidate) => candidate.includes('#code='));
  if (!link) throw new Error(`the sign-in e-mail to ${email} carries no sign-in link: ${mail.text}`);
  await page.goto(link);
  return page;
}
