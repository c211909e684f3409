// Headless Chromium (Debian's /usr/bin/chromium, or CHROMIUM_PATH) driven by puppeteer-core,
// for tests of the widget as a visitor's browser runs it. Screenshots go to test-artifacts/
// (gitignored), which outlives the test work directory.
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import puppeteer, { type Browser, type BrowserContext, type ElementHandle, type Page } from "puppeteer-core";

export const ARTIFACTS_DIR = resolve(import.meta.dirname, "../../test-artifacts");

export function launchBrowser(): Promise<Browser> {
  return puppeteer.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    headless: true,
    // As root in a container: no sandbox; /dev/shm may be small.
    args: ["--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"],
  });
}

declare global {
  /** The widget's shadow root (page helper). */
  function widgetRoot(): ShadowRoot | null;
  /** The comment (article) whose own body contains `text` (page helper). */
  function commentWith(text: string): HTMLElement | null;
  /** The button of that comment's own rows whose text or aria-label is `label` (page helper). */
  function buttonOf(text: string, label: string): HTMLButtonElement | null;
}

// Test functions are compiled by tsx with esbuild's keepNames, whose __name helper the page
// does not have: an identity stand-in. And lookups by visible text, which selectors lack.
const PAGE_HELPERS = `
window.__name = (f) => f;
window.widgetRoot = () => document.querySelector("matrix-comments")?.shadowRoot ?? null;
window.commentWith = (text) => [...(widgetRoot()?.querySelectorAll("article") ?? [])].find((a) => a.querySelector(":scope > .body")?.textContent.includes(text)) ?? null;
window.buttonOf = (text, label) => [...(commentWith(text)?.querySelectorAll(":scope > .row button") ?? [])].find((b) => b.textContent.trim() === label || b.getAttribute("aria-label") === label) ?? null;
`;

/** Waits until `fn` (run in the page) returns something truthy; returns it as an element handle (click it). */
export async function find<A extends unknown[]>(page: Page, fn: (...args: A) => unknown, ...args: A): Promise<ElementHandle<Element>> {
  const handle = await page.waitForFunction(fn as (...a: unknown[]) => unknown, { timeout: 20_000, polling: 100 }, ...args);
  return handle.asElement() as ElementHandle<Element>;
}

/** A new tab with the demo page of `slug` open and its widget rendered; `prepare` runs before the page loads. */
export async function openWidget(context: Browser | BrowserContext, demoUrl: string, slug: string, prepare?: (page: Page) => void): Promise<Page> {
  const page = await context.newPage();
  prepare?.(page);
  await page.setViewport({ width: 800, height: 900 });
  page.on("dialog", (dialog) => void dialog.accept());
  await page.evaluateOnNewDocument(PAGE_HELPERS);
  await page.goto(`${demoUrl}/?page=${slug}`);
  await page.waitForFunction(() => !!document.querySelector("matrix-comments")?.shadowRoot?.querySelector("ol"));
  return page;
}

/** Evaluates `fn` with the widget's shadow root. */
export function inWidget<T, A extends unknown[]>(page: Page, fn: (root: ShadowRoot, ...args: A) => T, ...args: A): Promise<Awaited<T>> {
  return page.evaluate(
    (source: string, ...rest: unknown[]) => {
      const root = document.querySelector("matrix-comments")!.shadowRoot!;
      return (0, eval)(`(${source})`)(root, ...rest);
    },
    fn.toString(),
    ...args,
  ) as Promise<Awaited<T>>;
}

/** Waits until `fn` (run with the widget's shadow root) returns something truthy, and returns it. */
export async function waitInWidget<A extends unknown[]>(page: Page, fn: (root: ShadowRoot, ...args: A) => unknown, timeout = 20_000, ...args: A): Promise<void> {
  await page.waitForFunction(
    (source: string, ...rest: unknown[]) => {
      const root = document.querySelector("matrix-comments")?.shadowRoot;
      return root ? (0, eval)(`(${source})`)(root, ...rest) : false;
    },
    { timeout, polling: 100 },
    fn.toString(),
    ...args,
  );
}

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(ARTIFACTS_DIR, { recursive: true });
  const path = join(ARTIFACTS_DIR, `${name}.png`);
  const element = await page.$("matrix-comments");
  await element!.screenshot({ path });
  return path;
}
