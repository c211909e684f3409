// The SDK's Markdown: CommonMark (with GitHub's extensions) to the HTML a formatted_body carries;
// raw HTML stays text, images their alt text, links only http(s) and mailto; plain text none.
import { test } from "node:test";
import assert from "node:assert/strict";
import { markdownToHtml } from "../../src/client/markdown.ts";

test("emphasis, links, lists, quotes, inline code and code blocks become HTML", () => {
  assert.equal(markdownToHtml("**bold** _em_ `code`"), "<p><strong>bold</strong> <em>em</em> <code>code</code></p>");
  assert.equal(markdownToHtml("- a\n- b"), "<ul>\n<li>a</li>\n<li>b</li>\n</ul>");
  assert.equal(markdownToHtml("3. c\n4. d"), '<ol start="3">\n<li>c</li>\n<li>d</li>\n</ol>');
  assert.equal(markdownToHtml("> quoted"), "<blockquote>\n<p>quoted</p>\n</blockquote>");
  assert.equal(
    markdownToHtml("```js\nif (a < b) {}\n```"),
    '<pre><code class="language-js">if (a &lt; b) {}\n</code></pre>',
  );
  assert.equal(
    markdownToHtml("[site](https://example.org) [mail](mailto:a@example.org)"),
    '<p><a href="https://example.org">site</a> <a href="mailto:a@example.org">mail</a></p>',
  );
  assert.equal(markdownToHtml("line one\nline **two**"), "<p>line one<br>line <strong>two</strong></p>");
});

test("no raw HTML, no images, no other link schemes", () => {
  assert.equal(
    markdownToHtml("<b>raw</b> *x* <script>alert(1)</script>"),
    "<p>&lt;b&gt;raw&lt;/b&gt; <em>x</em> &lt;script&gt;alert(1)&lt;/script&gt;</p>",
  );
  assert.equal(markdownToHtml("<div onclick=x>\nblock\n</div>"), "&lt;div onclick=x&gt;\nblock\n&lt;/div&gt;");
  assert.equal(markdownToHtml("![a cat](https://example.org/cat.png) *x*"), "<p>a cat <em>x</em></p>");
  assert.equal(markdownToHtml("[run](javascript:alert(1)) *x*"), "<p>run <em>x</em></p>");
  assert.equal(
    markdownToHtml('[q](https://e.org/"onmouseover=x) *x*'),
    '<p><a href="https://e.org/&quot;onmouseover=x">q</a> <em>x</em></p>',
  );
});

test("a text without formatting has no HTML: its plain body says it all", () => {
  for (const text of ["hello", "two\nlines", "it's <b>not</b> markup & fine"])
    assert.equal(markdownToHtml(text), null, text);
});
