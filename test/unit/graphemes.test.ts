import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { graphemeCount, hasControlCharacters } from "../../src/security/graphemes.ts";

describe("graphemeCount (extended grapheme clusters)", () => {
  const cases: Array<[string, string, number]> = [
    ["empty", "", 0],
    ["ASCII", "abc", 3],
    ["family emoji (ZWJ sequence)", "👨‍👩‍👧‍👦", 1],
    ["two flags", "🇫🇷🇩🇪", 2],
    ["e + combining acute", "e\u0301", 1],
    ["precomposed é", "\u00e9", 1],
    ["thumbs up with skin tone", "👍🏽", 1],
    ["keycap", "1\ufe0f\u20e3", 1],
    ["CRLF", "\r\n", 1],
    ["Hangul jamo syllable", "\u1100\u1161\u11a8", 1],
    ["astral CJK", "𠀋", 1],
    ["mixed", "a👨‍👩‍👧‍👦e\u0301🇫🇷", 4],
  ];
  for (const [name, text, expected] of cases) {
    test(`${name}: ${expected}`, () => {
      assert.equal(graphemeCount(text), expected);
    });
  }

  test("counts graphemes, not UTF-16 units or code points", () => {
    const family = "👨‍👩‍👧‍👦";
    assert.equal(family.length, 11);
    assert.equal([...family].length, 7);
    assert.equal(graphemeCount(family.repeat(3)), 3);
  });
});

describe("hasControlCharacters (Unicode Cc)", () => {
  for (const [name, text] of [
    ["NUL", "a\u0000b"],
    ["newline", "a\nb"],
    ["tab", "\t"],
    ["DEL", "\u007f"],
    ["C1 NEL", "\u0085"],
    ["escape", "\u001b[31m"],
  ] as const) {
    test(`${name} is a control character`, () => {
      assert.equal(hasControlCharacters(text), true);
    });
  }
  for (const [name, text] of [
    ["plain text", "Alice"],
    ["ZWJ (format, not control)", "👨‍👩‍👧‍👦"],
    ["combining mark", "e\u0301"],
    ["non-breaking space", "a\u00a0b"],
    ["empty", ""],
  ] as const) {
    test(`${name} has none`, () => {
      assert.equal(hasControlCharacters(text), false);
    });
  }
});

describe("graphemeCount on text longer than one segmentation chunk", () => {
  const reference = (text: string) =>
    [...new Intl.Segmenter(undefined, { granularity: "grapheme" }).segment(text)].length;

  for (const [name, text] of [
    ["family emoji offset by one code unit", "a" + "👨‍👩‍👧‍👦".repeat(1500)],
    ["regional-indicator flags", "x" + "🇫🇷🇩🇪".repeat(1200)],
    ["combining marks", "e\u0301".repeat(3000)],
    ["mixed", "héllo 👋🏽 wörld 🇯🇵\n".repeat(400)],
  ] as const) {
    test(`${name} counts like a whole-string segmentation`, () => {
      assert.equal(graphemeCount(text), reference(text));
    });
  }

  test("stopAfter stops early but still reports more than the limit", () => {
    const count = graphemeCount("é".repeat(1_000_000), 10);
    assert.ok(count > 10 && count < 5000, `got ${count}`);
  });
});

describe("graphemeCount ASCII fast path", () => {
  test("CR LF is one cluster, lone CR and LF are one each", () => {
    assert.equal(graphemeCount("a\r\nb"), 3);
    assert.equal(graphemeCount("a\n\rb"), 4);
    assert.equal(graphemeCount("plain ascii"), 11);
  });
});
