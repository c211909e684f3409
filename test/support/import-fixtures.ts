// Import fixtures written from each format's public definition, all telling one story (the
// `STORY` below): threads, a reply to a reply, a reply listed before its parent, HTML with a
// script and links, non-ASCII text, a deleted and a spam comment, a reply whose parent is not in
// the file. Each format renders the same comments, so one expectation checks every import.

export interface StoryComment {
  id: string;
  page: "hello" | "about";
  parent: string | null;
  author: string;
  email: string;
  time: string;
  html: string;
  skip?: "deleted" | "spam";
  pinned?: boolean;
}

export const STORY_PAGES = {
  hello: { url: "https://blog.example/posts/hello-world/", title: "Hello, world", slug: "posts-hello-world" },
  about: { url: "https://blog.example/about", title: "About — Über uns", slug: "about" },
} as const;

/** In file order: c5 (a reply) comes before its parent c4. */
export const STORY: StoryComment[] = [
  {
    id: "101",
    page: "hello",
    parent: null,
    author: "Ann Example",
    email: "ann@example.org",
    time: "2020-01-01T10:00:00Z",
    html: '<p>Hello <b>world</b>!<script>alert("x")</script> See <a href="https://example.org/x" onclick="steal()">this link</a> and <a href="javascript:alert(1)">that</a>.</p>',
    pinned: true,
  },
  {
    id: "102",
    page: "hello",
    parent: "101",
    author: "Björn Ångström",
    email: "bjorn@example.org",
    time: "2020-01-01T11:00:00Z",
    html: "<p>Grüße aus Köln — 日本語のコメント ✓</p>",
  },
  {
    id: "103",
    page: "hello",
    parent: "102",
    author: "Ann Example",
    email: "ann@example.org",
    time: "2020-01-01T12:00:00Z",
    html: "<p>A reply to a reply &amp; more.</p>",
  },
  {
    id: "105",
    page: "hello",
    parent: "104",
    author: "Chen Wei",
    email: "chen@example.org",
    time: "2020-01-02T09:30:00Z",
    html: "<p>Listed before my parent.</p>",
  },
  {
    id: "104",
    page: "hello",
    parent: null,
    author: "Dana",
    email: "dana@example.org",
    time: "2020-01-02T09:00:00Z",
    html: "<p>Second thread.</p>",
  },
  {
    id: "106",
    page: "hello",
    parent: null,
    author: "Eve",
    email: "eve@example.org",
    time: "2020-01-03T08:00:00Z",
    html: "<p>I was deleted.</p>",
    skip: "deleted",
  },
  {
    id: "107",
    page: "hello",
    parent: null,
    author: "Spammer",
    email: "spam@example.org",
    time: "2020-01-03T09:00:00Z",
    html: '<p>Buy <a href="https://spam.example">now</a></p>',
    skip: "spam",
  },
  {
    id: "108",
    page: "hello",
    parent: "999",
    author: "Dana",
    email: "dana@example.org",
    time: "2020-01-04T10:00:00Z",
    html: "<p>My parent is gone.</p>",
  },
  {
    id: "201",
    page: "about",
    parent: null,
    author: "Ann Example",
    email: "ann@example.org",
    time: "2021-06-01T12:00:00Z",
    html: "<p>Nice page.</p>",
  },
];

/** What a read of each page must show, oldest first: author, text, time, and the parent/thread by story id. */
export function expectedReads(): Record<
  string,
  Array<{ id: string; author: string; body: string; time: string; parent: string | null; root: string | null }>
> {
  const body: Record<string, string> = {
    "101": "Hello world! See this link and that.",
    "102": "Grüße aus Köln — 日本語のコメント ✓",
    "103": "A reply to a reply & more.",
    "104": "Second thread.",
    "105": "Listed before my parent.",
    "108": "My parent is gone.",
    "201": "Nice page.",
  };
  const kept = STORY.filter((c) => !c.skip);
  const byId = new Map(kept.map((c) => [c.id, c]));
  const rootOf = (c: StoryComment): string | null => {
    if (!c.parent || !byId.has(c.parent)) return null;
    let at = byId.get(c.parent)!;
    while (at.parent && byId.has(at.parent)) at = byId.get(at.parent)!;
    return at.id;
  };
  const reads: Record<string, any[]> = {};
  for (const page of ["hello", "about"] as const) {
    reads[STORY_PAGES[page].slug] = kept
      .filter((c) => c.page === page)
      .sort((a, b) => a.time.localeCompare(b.time))
      .map((c) => ({
        id: c.id,
        author: c.author,
        body: body[c.id]!,
        time: new Date(c.time).toISOString(),
        parent: c.parent && byId.has(c.parent) ? c.parent : null,
        root: rootOf(c),
      }));
  }
  return reads;
}

const cdata = (text: string) => `<![CDATA[${text}]]>`;
const esc = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

export function disqusXml(comments: StoryComment[] = STORY): string {
  const threads = Object.entries(STORY_PAGES).map(
    ([key, p], i) => `  <thread dsq:id="${9000 + i}">
    <id>${key}</id>
    <forum>blog</forum>
    <category dsq:id="1"/>
    <link>${p.url}</link>
    <title>${esc(p.title)}</title>
    <message/>
    <createdAt>2019-12-31T00:00:00Z</createdAt>
    <author><name>Blog</name><isAnonymous>false</isAnonymous><username>blog</username></author>
    <isClosed>false</isClosed>
    <isDeleted>false</isDeleted>
  </thread>`,
  );
  const posts = comments.map(
    (c) => `  <post dsq:id="${c.id}">
    <id/>
    <message>${cdata(c.html)}</message>
    <createdAt>${c.time}</createdAt>
    <isDeleted>${c.skip === "deleted"}</isDeleted>
    <isSpam>${c.skip === "spam"}</isSpam>
    <author>
      <email>${c.email}</email>
      <name>${esc(c.author)}</name>
      <isAnonymous>false</isAnonymous>
      <username>${c.email.split("@")[0]}</username>
    </author>
    <thread dsq:id="${c.page === "hello" ? 9000 : 9001}"/>
${c.parent ? `    <parent dsq:id="${c.parent}"/>\n` : ""}  </post>`,
  );
  return `<?xml version="1.0" encoding="utf-8"?>
<disqus xmlns="http://disqus.com" xmlns:dsq="http://disqus.com/disqus-internals" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
  <category dsq:id="1"><forum>blog</forum><title>General</title><isDefault>true</isDefault></category>
${threads.join("\n")}
${posts.join("\n")}
</disqus>
`;
}

const wpDate = (iso: string) => iso.replace("T", " ").replace("Z", "");

export function wordpressWxr(version: "1.0" | "1.1" | "1.2" = "1.2"): string {
  const items = Object.entries(STORY_PAGES).map(([key, p], i) => {
    const comments = STORY.filter((c) => c.page === key).map(
      (c) => `    <wp:comment>
      <wp:comment_id>${c.id}</wp:comment_id>
      <wp:comment_author>${cdata(c.author)}</wp:comment_author>
      <wp:comment_author_email>${c.email}</wp:comment_author_email>
      <wp:comment_author_url></wp:comment_author_url>
      <wp:comment_author_IP>192.0.2.1</wp:comment_author_IP>
      <wp:comment_date>${wpDate(c.time)}</wp:comment_date>
      <wp:comment_date_gmt>${wpDate(c.time)}</wp:comment_date_gmt>
      <wp:comment_content>${cdata(c.html.replace(/^<p>|<\/p>$/g, ""))}</wp:comment_content>
      <wp:comment_approved>${c.skip === "spam" ? "spam" : c.skip === "deleted" ? "trash" : "1"}</wp:comment_approved>
      <wp:comment_type>comment</wp:comment_type>
      <wp:comment_parent>${c.parent ?? 0}</wp:comment_parent>
      <wp:comment_user_id>0</wp:comment_user_id>
    </wp:comment>`,
    );
    const pingback =
      key === "hello"
        ? `    <wp:comment>
      <wp:comment_id>150</wp:comment_id>
      <wp:comment_author>${cdata("Other Blog")}</wp:comment_author>
      <wp:comment_date_gmt>2020-02-01 00:00:00</wp:comment_date_gmt>
      <wp:comment_content>${cdata("[…] linked here […]")}</wp:comment_content>
      <wp:comment_approved>1</wp:comment_approved>
      <wp:comment_type>pingback</wp:comment_type>
      <wp:comment_parent>0</wp:comment_parent>
    </wp:comment>`
        : "";
    return `  <item>
    <title>${esc(p.title)}</title>
    <link>${p.url}</link>
    <pubDate>Tue, 31 Dec 2019 00:00:00 +0000</pubDate>
    <dc:creator>${cdata("admin")}</dc:creator>
    <content:encoded>${cdata("<p>The post.</p>")}</content:encoded>
    <wp:post_id>${10 + i}</wp:post_id>
    <wp:post_name>${key}</wp:post_name>
    <wp:status>publish</wp:status>
    <wp:post_type>post</wp:post_type>
${comments.join("\n")}
${pingback}
  </item>`;
  });
  return `<?xml version="1.0" encoding="UTF-8" ?>
<rss version="2.0" xmlns:excerpt="http://wordpress.org/export/${version}/excerpt/" xmlns:content="http://purl.org/rss/1.0/modules/content/" xmlns:wfw="http://wellformedweb.org/CommentAPI/" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:wp="http://wordpress.org/export/${version}/">
<channel>
  <title>Blog</title>
  <link>https://blog.example</link>
  <wp:wxr_version>${version}</wp:wxr_version>
${items.join("\n")}
</channel>
</rss>
`;
}

export function remark42Backup(): string {
  const meta = {
    version: 1,
    users: [],
    posts: Object.values(STORY_PAGES).map((p) => ({ url: p.url, count: 0 })),
  };
  const lines = STORY.map((c) =>
    JSON.stringify({
      id: `r-${c.id}`,
      pid: c.parent ? `r-${c.parent}` : "",
      text: c.html,
      orig: c.html,
      user: { name: c.author, id: `email_${c.email.split("@")[0]}`, picture: "", ip: "0123abcd", admin: false },
      locator: { site: "blog", url: STORY_PAGES[c.page].url },
      score: 0,
      votes: {},
      time: c.time,
      pin: c.pinned ?? false,
      delete: c.skip !== undefined,
      title: STORY_PAGES[c.page].title,
    }),
  );
  return `${JSON.stringify(meta)}\n${lines.join("\n")}\n`;
}

export function commentoJson(): string {
  const authors = [...new Map(STORY.map((c) => [c.email, c])).values()];
  const hex = (text: string) => Buffer.from(text).toString("hex").padEnd(64, "0").slice(0, 64);
  return JSON.stringify(
    {
      version: 1,
      comments: STORY.map((c) => ({
        commentHex: hex(c.id),
        domain: "blog.example",
        url: new URL(STORY_PAGES[c.page].url).pathname,
        commenterHex: hex(c.email),
        markdown: c.html,
        html: c.html,
        parentHex: c.parent ? hex(c.parent) : "root",
        score: 0,
        state: c.skip === "spam" ? "flagged" : "approved",
        creationDate: c.time,
        direction: 0,
        deleted: c.skip === "deleted",
      })),
      // After the comments that name them.
      commenters: authors.map((c) => ({
        commenterHex: hex(c.email),
        email: c.email,
        name: c.author,
        link: "undefined",
        photo: "undefined",
        provider: "commento",
        joinDate: "2019-01-01T00:00:00Z",
        isModerator: false,
      })),
    },
    null,
    2,
  );
}
