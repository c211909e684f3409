import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  hasLink,
  heldWord,
  HOLD_OFF,
  holdReason,
  normalizeWords,
  settingInForce,
} from "../../src/features/moderation/hold-rules.ts";

const plain = { text: "a plain comment", firstOnSite: false };

describe("hold rules", () => {
  test("off holds nothing, all holds everything", () => {
    assert.equal(holdReason(HOLD_OFF, { ...plain, firstOnSite: true }), null);
    assert.equal(holdReason({ mode: "all", words: [] }, plain), "all");
  });

  test("first-post holds an author's first comment on the site only", () => {
    const setting = { mode: "first-post" as const, words: [] };
    assert.equal(holdReason(setting, { ...plain, firstOnSite: true }), "first-post");
    assert.equal(holdReason(setting, plain), null);
  });

  test("links holds comments with a URL or a web address", () => {
    const setting = { mode: "links" as const, words: [] };
    for (const text of ["see https://spam.example", "www.spam.example", "go to spam.example/offer", "HTTP://X.Y"])
      assert.equal(holdReason(setting, { ...plain, text }), "links", text);
    for (const text of ["no link here", "e.g. this", "3.14 is pi", "an email-like a.b"])
      assert.equal(hasLink(text), false, text);
  });

  test("a listed word holds whatever the mode, as a whole word, case-insensitively", () => {
    const setting = { mode: "off" as const, words: ["casino", "crème"] };
    assert.equal(holdReason(setting, { ...plain, text: "Best CASINO in town" }), "words");
    assert.equal(holdReason(setting, { ...plain, text: "la Crème brûlée" }), "words");
    assert.equal(heldWord("casinos are fine", setting.words), null);
    assert.equal(heldWord("crèmes", setting.words), null);
    assert.equal(heldWord("a (casino).", setting.words), "casino");
  });

  test("a word with pattern characters is matched literally", () => {
    assert.equal(heldWord("price: $5+", ["$5+"]), "$5+");
    assert.equal(heldWord("price: 55", ["5+"]), null);
  });

  test("the page's setting overrides the site's, which overrides the configuration's", () => {
    const page = { mode: "all" as const, words: [] };
    const site = { mode: "links" as const, words: [] };
    const configured = { mode: "first-post" as const, words: [] };
    assert.equal(settingInForce(page, site, configured), page);
    assert.equal(settingInForce(null, site, configured), site);
    assert.equal(settingInForce(null, null, configured), configured);
    assert.equal(settingInForce(null, null, null), HOLD_OFF);
  });

  test("word lists are normalized and bounded", () => {
    assert.deepEqual(normalizeWords([" Spam ", "spam", "", "Eggs"]), { words: ["spam", "eggs"] });
    assert.ok("error" in normalizeWords(Array.from({ length: 201 }, (_, i) => `w${i}`)));
    assert.ok("error" in normalizeWords(["x".repeat(65)]));
  });
});
