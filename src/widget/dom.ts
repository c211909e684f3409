/// <reference lib="dom" />
// Building DOM without markup: text only ever goes into text nodes, URLs only into href/src
// after safeUrl() accepted them, and event handlers only come from the widget's own code.
// Nothing anyone posts is parsed as HTML.

export type Child = Node | string | number | null | undefined | false | Child[];
type Props = Record<string, string | number | boolean | null | undefined | EventListener>;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Props = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (value === null || value === undefined || value === false) continue;
    if (typeof value === "function") element.addEventListener(name.slice(2), value);
    else element.setAttribute(name, value === true ? "" : String(value));
  }
  append(element, children);
  return element;
}

function append(parent: Node, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(parent, child);
    else parent.appendChild(typeof child === "object" ? child : document.createTextNode(String(child)));
  }
}

/** The URL when it is http(s) (relative ones resolved against `base`), else null: no javascript:, data: or other schemes. */
export function safeUrl(url: string | null | undefined, base: string): string | null {
  if (!url) return null;
  try {
    const parsed = new URL(url, base);
    return parsed.protocol === "https:" || parsed.protocol === "http:" ? parsed.href : null;
  } catch {
    return null;
  }
}

/** Text with its http(s) URLs as links (everything else, `javascript:` included, stays text). */
export function linkify(text: string, base: string): Child[] {
  const parts: Child[] = [];
  let last = 0;
  for (const match of text.matchAll(/\bhttps?:\/\/[^\s<>"']+[^\s<>"'.,;:!?)\]]/g)) {
    const href = safeUrl(match[0], base);
    if (!href) continue;
    parts.push(
      text.slice(last, match.index),
      h("a", { href, target: "_blank", rel: "nofollow noopener noreferrer ugc" }, match[0]),
    );
    last = match.index + match[0].length;
  }
  parts.push(text.slice(last));
  return parts;
}
