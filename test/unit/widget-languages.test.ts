// The widget's languages: one file per language (src/widget/locales/<code>.json) with every key
// of English, each plural message with every form its language's plural rules name, and the
// placeholders English fills; the choice of language by the element, the page and the browser.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { LANGUAGES, Translator, chooseLanguage, type Messages } from "../../src/widget/i18n.ts";

const dir = resolve(import.meta.dirname, "../../src/widget/locales");
const read = (code: string) => JSON.parse(readFileSync(resolve(dir, `${code}.json`), "utf8")) as Messages;
const english = read("en");
/** Messages labelling a button that shows the number itself. */
const SHOWN_COUNTS = ["reaction", "vote"];
const placeholders = (text: string) => new Set([...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]));

test("the language list is the files; at least 12, one right-to-left, one CJK", () => {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .map((f) => f.slice(0, -5))
    .sort();
  assert.deepEqual(files, [...LANGUAGES].sort());
  assert.ok(files.length >= 12);
  assert.ok(files.some((code) => ["ar", "he"].includes(code)));
  assert.ok(files.some((code) => ["ja", "zh", "ko"].includes(code)));
});

for (const code of LANGUAGES) {
  test(`${code}: every key of English, every plural form of ${code}, English's placeholders`, () => {
    const messages = read(code);
    const categories = new Intl.PluralRules(code).resolvedOptions().pluralCategories;
    assert.deepEqual(Object.keys(messages).sort(), Object.keys(english).sort(), "the same keys as English");
    for (const [key, model] of Object.entries(english)) {
      const message = messages[key as keyof Messages];
      if (typeof model === "string") {
        assert.equal(typeof message, "string", `${key} is text`);
        assert.ok((message as string).trim(), `${key} is not empty`);
        assert.deepEqual(placeholders(message as string), placeholders(model), `${key}: its placeholders`);
        continue;
      }
      assert.equal(typeof message, "object", `${key} has plural forms`);
      const forms = message as Record<string, string>;
      for (const category of categories) assert.ok(forms[category]?.trim(), `${key}: the "${category}" form`);
      // Every named value but the count itself (a form may say "one" or "two" in words), except
      // where the count is on the button the message labels: a label holds what it shows (WCAG 2.5.3).
      const needed = [...placeholders(model.other)].filter((name) => name !== "n" || SHOWN_COUNTS.includes(key));
      for (const [category, form] of Object.entries(forms)) {
        assert.ok(categories.includes(category as Intl.LDMLPluralRule), `${key}: "${category}" is a form of ${code}`);
        for (const name of needed) assert.ok(form.includes(`{${name}}`), `${key}.${category} fills {${name}}`);
      }
    }
  });
}

test("the element's lang, then the page's, then the browser's; English otherwise", () => {
  assert.equal(chooseLanguage(["de", "fr"]), "de");
  assert.equal(chooseLanguage([null, "pt-BR", "en"]), "pt");
  assert.equal(chooseLanguage(["", undefined, "zh-Hans-CN"]), "zh");
  assert.equal(chooseLanguage(["xx", "AR"]), "ar");
  assert.equal(chooseLanguage(["tlh"]), "en");
});

test("plurals by the language's rules, lists and relative times by Intl", () => {
  const arabic = new Translator("ar", read("ar"));
  assert.equal(arabic.dir, "rtl");
  assert.equal(arabic.plural("count", 2), "تعليقان");
  assert.equal(arabic.plural("count", 3), `${(3).toLocaleString("ar")} تعليقات`);
  const polish = new Translator("pl", read("pl"));
  assert.deepEqual(
    [1, 2, 5, 22].map((n) => polish.plural("count", n)),
    ["1 komentarz", "2 komentarze", "5 komentarzy", "22 komentarze"],
  );
  const english = new Translator("en", read("en"));
  assert.equal(english.dir, "ltr");
  assert.equal(english.plural("typing", 2, { names: english.list(["Ada", "Grace"]) }), "Ada and Grace are typing…");
  const now = Date.parse("2026-11-27T12:00:00Z");
  assert.equal(english.ago(new Date(now - 3 * 60_000), now), "3 minutes ago");
  assert.equal(english.ago(new Date(now - 26 * 3600_000), now), "yesterday");
  assert.equal(english.ago(new Date(now - 2_000), now), "now");
  assert.equal(new Translator("de", read("de")).ago(new Date(now - 3 * 60_000), now), "vor 3 Minuten");
});
