// Markdown as the SDK sends it: the text itself stays the event's plain `body` (what is signed),
// and its HTML (CommonMark with GitHub's extensions, converted by marked) goes beside it as an
// org.matrix.custom.html `formatted_body`, as Matrix clients send Markdown. Raw HTML in the text
// is shown as text and images as their alt text: a comment formats what it says, it does not
// embed. Readers sanitize the HTML anyway (the widget: src/widget/sanitize.ts).
import { Marked, type Tokens } from "marked";

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

/** Links a comment may carry: the web and mail, nothing a browser would run. */
const LINK = /^(?:https?:|mailto:)/i;

const marked = new Marked({
  gfm: true,
  // A line break in the text is one in the comment, as in the plain body shown without HTML.
  breaks: true,
  renderer: {
    html: (token: Tokens.HTML | Tokens.Tag) => escapeHtml(token.text),
    image: (token: Tokens.Image) => escapeHtml(token.text),
    link(this: { parser: { parseInline: (tokens: Tokens.Generic[]) => string } }, token: Tokens.Link) {
      const text = this.parser.parseInline(token.tokens);
      return LINK.test(token.href) ? `<a href="${escapeHtml(token.href)}">${text}</a>` : text;
    },
  },
});

/** The HTML of `markdown`, or null when it has no formatting (the plain body says it all). */
export function markdownToHtml(markdown: string): string | null {
  const html = (marked.parse(markdown, { async: false }) as string).trim();
  const plain = `<p>${escapeHtml(markdown.trim()).replace(/\n/g, "<br>")}</p>`;
  return html === plain ? null : html;
}
