import { test } from "node:test";
import assert from "node:assert/strict";
import { spanText } from "../../src/features/webhooks/deliverer.ts";

test("an endpoint's disabled_reason states the span its deliveries failed over, never 0 min", () => {
  const cases: [number, string][] = [
    [0, "0.0 s"],
    [3_240, "3.2 s"],
    [9_949, "9.9 s"],
    [9_950, "10 s"],
    [42_400, "42 s"],
    [59_499, "59 s"],
    [59_500, "1 min"],
    [14 * 60_000 + 20_000, "14 min"],
    [59 * 60_000 + 29_000, "59 min"],
    [59 * 60_000 + 30_000, "1 h"],
    [24 * 3_600_000, "24 h"],
    [25 * 3_600_000 + 3 * 60_000, "25 h 3 min"],
  ];
  for (const [ms, text] of cases) assert.equal(spanText(ms), text, String(ms));
});
