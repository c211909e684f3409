// What a backfill prints (src/features/backfill/run.ts): a bar redrawn in place on a terminal,
// one plain line per room otherwise.
import { test } from "node:test";
import assert from "node:assert/strict";
import { progressPrinter } from "../../src/features/backfill/run.ts";
import type { RoomReport } from "../../src/features/backfill/backfill.ts";

const space: RoomReport = {
  siteId: "blog",
  pageSlug: null,
  roomId: "!s",
  role: "space",
  read: 9,
  total: 9,
  error: null,
};
const page: RoomReport = {
  siteId: "blog",
  pageSlug: "hello",
  roomId: "!p",
  role: "active",
  read: 3,
  total: 40,
  error: "502 M_UNKNOWN",
};

function run(isTTY: boolean): string {
  let text = "";
  const printer = progressPrinter({ isTTY, write: (t: string) => (text += t) });
  printer.planned(2);
  printer.page(space, 9);
  printer.room(space, 1, 2);
  printer.page(page, 3);
  printer.room(page, 2, 2);
  return text;
}

test("not a terminal: one line per room", () => {
  assert.equal(
    run(false),
    [
      "backfill: 2 rooms to read",
      "backfill: [1/2] blog (space) !s space: 9 events read (9 in all)",
      "backfill: [2/2] blog/hello !p active: 3 events read (40 in all) FAILED: 502 M_UNKNOWN",
      "",
    ].join("\n"),
  );
});

test("a terminal: a bar redrawn in place, failures kept above it, a newline at the end", () => {
  const text = run(true);
  assert.doesNotMatch(
    text.replace(/\n$/, "").replace("FAILED: 502 M_UNKNOWN\n", ""),
    /\n/,
    "one line redrawn, but for the failure",
  );
  assert.match(text, /\r\x1b\[2K\[\.{30}\] 0\/2 rooms  blog \(space\): 9 events/);
  assert.match(text, /\r\x1b\[2K\[#{15}\.{15}\] 1\/2 rooms  blog\/hello: 3 events/);
  assert.match(text, /\r\x1b\[2Kbackfill: blog\/hello !p FAILED: 502 M_UNKNOWN\n/);
  assert.match(text, /\[#{30}\] 2\/2 rooms  \n$/);
});
