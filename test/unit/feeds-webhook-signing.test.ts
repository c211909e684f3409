// The pure parts of counts' neighbours: Atom documents and their escaping, conditional GETs,
// Standard Webhooks signatures (checked against the standardwebhooks package), event message ids.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { XMLParser, XMLValidator } from "fast-xml-parser";
import { Webhook } from "standardwebhooks";
import { atomDocument, contentText, escapeXml, headline } from "../../src/features/feeds/atom.ts";
import { notModified } from "../../src/features/feeds/feeds.ts";
import { newWebhookSecret, signWebhook, webhookHeaders } from "../../src/features/webhooks/signing.ts";
import { messageIdOf, subscribes } from "../../src/features/webhooks/events.ts";

describe("atom", () => {
  test("hostile text is escaped and characters XML cannot carry are dropped", () => {
    const hostile = `</content><script>&amp;"'\u0001\u0008\u{1F600}\ud800`;
    const xml = atomDocument({
      id: "urn:x",
      title: hostile,
      updated: new Date(0),
      self: `https://x.example/feed?a=1&b="2"`,
      entries: [
        {
          id: "urn:e",
          title: hostile,
          authorName: hostile,
          published: new Date(0),
          updated: new Date(1000),
          text: hostile,
          link: "https://x.example/p#comment-%24e",
        },
      ],
    });
    assert.equal(XMLValidator.validate(xml), true);
    const { feed } = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "@" }).parse(xml);
    assert.equal(feed.entry.content["#text"], `</content><script>&amp;"'\u{1F600}`);
    assert.equal(feed.link["@href"], `https://x.example/feed?a=1&b="2"`);
    assert.equal(escapeXml("a<b>&\"'"), "a&lt;b&gt;&amp;&quot;&apos;");
  });

  test("content and titles", () => {
    assert.equal(contentText({ type: "text", body: "hi" }), "hi");
    assert.equal(contentText({ type: "poll", question: "Q?" }), "[poll] Q?");
    assert.equal(contentText({ type: "redacted" }), "[redacted]");
    assert.equal(headline("one\ntwo"), "one");
    assert.equal([...headline("\u{1F600}".repeat(100), 10)].length, 10);
  });

  test("conditional GETs: If-None-Match wins, weak comparison, dates to the second", () => {
    const etag = '"abc"';
    const at = new Date("2026-01-01T00:00:00.500Z");
    assert.equal(notModified({ ifNoneMatch: '"abc"' }, etag, at), true);
    assert.equal(notModified({ ifNoneMatch: 'W/"abc", "x"' }, etag, at), true);
    assert.equal(notModified({ ifNoneMatch: "*" }, etag, null), true);
    assert.equal(notModified({ ifNoneMatch: '"x"', ifModifiedSince: at.toUTCString() }, etag, at), false);
    assert.equal(notModified({ ifModifiedSince: at.toUTCString() }, etag, at), true);
    assert.equal(notModified({ ifModifiedSince: new Date(0).toUTCString() }, etag, at), false);
    assert.equal(notModified({ ifModifiedSince: "not a date" }, etag, at), false);
    assert.equal(notModified({}, etag, at), false);
  });
});

describe("webhook signatures", () => {
  test("what we sign, the standardwebhooks package verifies, and signs alike", () => {
    const secret = newWebhookSecret();
    assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    const body = JSON.stringify({ type: "comment.created", data: { text: "é ✓" } });
    const headers = webhookHeaders(secret, "msg_1", body, new Date());
    assert.deepEqual(new Webhook(secret).verify(body, headers), JSON.parse(body));
    const at = new Date(1_700_000_000_000);
    assert.equal(signWebhook(secret, "msg_1", 1_700_000_000, body), new Webhook(secret).sign("msg_1", at, body));
    assert.throws(() => new Webhook(newWebhookSecret()).verify(body, headers));
  });

  test("message ids: the same happening is one message; revisions and types differ", () => {
    const event = { type: "comment.edited", siteId: "s", pageSlug: "p", eventId: "$e", revision: "1" } as const;
    assert.equal(messageIdOf(event), messageIdOf({ ...event }));
    assert.notEqual(messageIdOf(event), messageIdOf({ ...event, revision: "2" }));
    assert.notEqual(messageIdOf(event), messageIdOf({ ...event, type: "comment.deleted" }));
    assert.match(messageIdOf(event), /^msg_[A-Za-z0-9_-]{32}$/);
    assert.equal(subscribes([], "comment.held"), true);
    assert.equal(subscribes(["comment.created"], "comment.held"), false);
  });
});
