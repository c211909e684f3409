/// <reference lib="dom" />
// A comment's formatted_body (org.matrix.custom.html, from visitors and Matrix accounts alike) as
// DOM, through an allowlist of the Matrix specification's HTML subset (client-server API,
// "m.room.message msgtypes"): its tags less images (a formatted body's images are mxc:// URLs the
// media proxy does not sign for it) and fonts; of its attributes only a link's href (http, https
// and mailto), a list's start, a code block's language-* class and a spoiler's mark. Never style,
// event handlers or other URLs. Links open apart, without the page's opener or the site's
// endorsement (rel="noopener nofollow ugc").
//
// The HTML is parsed into an inert document (DOMParser: no scripts run, nothing loads), and a new
// tree is built from it element by element: allowlisted elements are created afresh with only
// the checked attributes set, text goes into text nodes, and the result is never serialized and
// parsed again, so no markup survives by changing its meaning on a second parse (mutation XSS).
// It weighs a fraction of a general sanitizer, which the widget's size budget counts.
import { MATRIX_HTML_TAGS } from "../contract/matrix-vocabulary.ts";

/** Matrix's elements but font and img (see above): their content stays, themselves not. */
export const ALLOWED_TAGS: ReadonlySet<string> = new Set(
  MATRIX_HTML_TAGS.filter((tag) => tag !== "font" && tag !== "img"),
);
/** Elements whose content goes with them: code, styles, embedded documents, a reply's quoted fallback. */
const DROPPED = new Set([
  "script",
  "style",
  "template",
  "iframe",
  "object",
  "embed",
  "frameset",
  "noembed",
  "noframes",
  "xmp",
  "title",
  "textarea",
  "select",
  "option",
  "mx-reply",
  "head",
]);
export const LINK_REL = "noopener nofollow ugc";
const SAFE_URL = /^(?:https?:|mailto:)/i;
const HTML_NS = "http://www.w3.org/1999/xhtml";
/** The specification suggests clients cap nesting at 100. */
const MAX_DEPTH = 100;

/** The attributes `from` may keep on its copy, checked. */
function copyAttributes(from: Element, to: HTMLElement): void {
  const tag = to.localName;
  const href = from.getAttribute("href")?.trim();
  if (tag === "a" && href && SAFE_URL.test(href)) {
    to.setAttribute("href", href);
    to.setAttribute("rel", LINK_REL);
    to.setAttribute("target", "_blank");
  }
  const start = from.getAttribute("start");
  if (tag === "ol" && start !== null && /^-?\d{1,9}$/.test(start)) to.setAttribute("start", start);
  const language = from.getAttribute("class");
  if (tag === "code" && language !== null && /^language-[\w+-]{1,40}$/.test(language))
    to.setAttribute("class", language);
  const spoiler = from.getAttribute("data-mx-spoiler");
  if (tag === "span" && spoiler !== null) to.setAttribute("data-mx-spoiler", spoiler.slice(0, 200));
}

function copyChildren(from: Node, to: Node, depth: number): void {
  if (depth > MAX_DEPTH) return;
  for (const child of from.childNodes) {
    if (child.nodeType === Node.TEXT_NODE) {
      to.appendChild(document.createTextNode(child.nodeValue ?? ""));
      continue;
    }
    if (child.nodeType !== Node.ELEMENT_NODE) continue; // comments, processing instructions
    const element = child as Element;
    const tag = element.localName;
    // SVG and MathML (their own namespaces) and dropped elements go with their content.
    if (element.namespaceURI !== HTML_NS || DROPPED.has(tag)) continue;
    if (!ALLOWED_TAGS.has(tag)) {
      // Another element (form, img, font …): its content stays, itself not.
      copyChildren(element, to, depth + 1);
      continue;
    }
    const copy = document.createElement(tag);
    copyAttributes(element, copy);
    copyChildren(element, copy, depth + 1);
    to.appendChild(copy);
  }
}

/** The sanitized DOM of `html`; null when nothing visible is left (the caller shows the plain body). */
export function sanitizedHtml(html: string): DocumentFragment | null {
  const parsed = new DOMParser().parseFromString(html, "text/html");
  const fragment = document.createDocumentFragment();
  copyChildren(parsed.body, fragment, 0);
  return fragment.textContent?.trim() ? fragment : null;
}
