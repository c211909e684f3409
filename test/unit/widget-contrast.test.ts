// WCAG 2.1 AA contrast of the widget's themes, computed from their custom properties
// (src/widget/styles.ts): text 4.5:1 on every surface it sits on, controls and focus 3:1.
import { test } from "node:test";
import assert from "node:assert/strict";
import { themes } from "../../src/widget/styles.ts";

function luminance(hex: string): number {
  const full = hex.length === 4 ? `#${[...hex.slice(1)].map((c) => c + c).join("")}` : hex;
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = Number.parseInt(full.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
}

export function contrast(a: string, b: string): number {
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (light! + 0.05) / (dark! + 0.05);
}

test("the contrast formula: black on white is 21, white on white 1", () => {
  assert.equal(contrast("#000", "#fff"), 21);
  assert.equal(contrast("#fff", "#ffffff"), 1);
});

/** [foreground, background, minimum]: text at 4.5, non-text (borders of controls, focus ring) at 3. */
const PAIRS: Array<[string, string, number]> = [
  ["--mc-fg", "--mc-bg", 4.5],
  ["--mc-muted", "--mc-bg", 4.5],
  ["--mc-fg", "--mc-surface", 4.5],
  ["--mc-muted", "--mc-surface", 4.5],
  ["--mc-accent", "--mc-bg", 4.5],
  ["--mc-accent", "--mc-surface", 4.5],
  ["--mc-accent-fg", "--mc-accent", 4.5],
  ["--mc-fg", "--mc-mine", 4.5],
  ["--mc-fg", "--mc-highlight", 4.5],
  ["--mc-muted", "--mc-highlight", 4.5],
  ["--mc-accent", "--mc-highlight", 4.5],
  ["--mc-danger", "--mc-bg", 4.5],
  ["--mc-accent", "--mc-mine", 3],
];

for (const [name, theme] of Object.entries(themes)) {
  test(`the ${name} theme's colours meet WCAG 2.1 AA`, () => {
    const colours = theme as Record<string, string>;
    for (const [fg, bg, minimum] of PAIRS) {
      const ratio = contrast(colours[fg]!, colours[bg]!);
      assert.ok(ratio >= minimum, `${fg} on ${bg}: ${ratio.toFixed(2)} < ${minimum}`);
    }
  });
}
