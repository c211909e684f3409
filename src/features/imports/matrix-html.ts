// A comment's HTML reduced to what Matrix clients render (the client-server spec's HTML subset
// for m.room.message formatted_body), with a plain-text body beside it. Scripts, styles and
// event handlers go with their content; links keep only safe schemes; images only mxc:// ones
// (clients load no other), so an external image is dropped.
import sanitizeHtml from "sanitize-html";
import { HTML_FORMAT, MATRIX_HTML_TAGS } from "../../contract/matrix-vocabulary.ts";

const MATRIX_HTML: sanitizeHtml.IOptions = {
  allowedTags: MATRIX_HTML_TAGS,
  allowedAttributes: {
    font: ["data-mx-bg-color", "data-mx-color", "color"],
    span: ["data-mx-bg-color", "data-mx-color", "data-mx-spoiler"],
    a: ["href", "target"],
    img: ["width", "height", "alt", "title", "src"],
    ol: ["start"],
    code: ["class"],
  },
  allowedSchemes: ["https", "http", "ftp", "mailto", "magnet"],
  allowedSchemesByTag: { img: ["mxc"] },
  allowedClasses: { code: ["language-*"] },
  allowProtocolRelative: false,
  disallowedTagsMode: "discard",
};

const ENTITIES: Record<string, string> = { "&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": '"', "&#39;": "'" };

/** The text of (already sanitized) HTML: line breaks where blocks and <br> were, no tags. */
function plainText(html: string): string {
  const broken = html.replace(/<br\s*\/?>/gi, "\n").replace(/<\/(p|div|li|blockquote|h[1-6]|pre|tr|summary)>/gi, "\n");
  const text = sanitizeHtml(broken, { allowedTags: [], allowedAttributes: {} });
  return text
    .replace(/&(amp|lt|gt|quot|#39);/g, (entity) => ENTITIES[entity]!)
    .replace(/[ \t]+\n/g, "\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

/** Message content fields for an HTML body: `body` (plain) and, when the HTML says more, its Matrix HTML. */
export function htmlMessage(html: string): { body: string; format?: string; formatted_body?: string } {
  const formatted = sanitizeHtml(html, MATRIX_HTML).trim();
  const body = plainText(formatted);
  const escaped = body.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  // Plain text wrapped in one paragraph says nothing the body does not.
  if (formatted === escaped || formatted === `<p>${escaped}</p>`) return { body };
  return { body, format: HTML_FORMAT, formatted_body: formatted };
}
