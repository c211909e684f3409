import { test } from "node:test";
import assert from "node:assert/strict";
import { DomainError } from "../../src/core/errors.ts";
import { UPLOAD_SLOTS } from "../../src/config/limits.ts";
import { UploadSlots } from "../../src/rest/upload-slots.ts";

const refused = (err: unknown) =>
  err instanceof DomainError &&
  err.status === 429 &&
  err.extra.headers?.["Retry-After"] === String(UPLOAD_SLOTS.retryAfterSeconds);

test("upload slots: bounded per client and per instance, freed once (a second release changes nothing)", () => {
  const slots = new UploadSlots();
  const mine = Array.from({ length: UPLOAD_SLOTS.perClient }, () => slots.take("a"));
  assert.throws(() => slots.take("a"), refused);
  mine[0]!();
  mine[0]!();
  const again = slots.take("a");
  assert.throws(() => slots.take("a"), refused);
  again();
  mine[1]!();
  const others = Array.from({ length: UPLOAD_SLOTS.perInstance }, (_, i) => slots.take(`client-${i}`));
  assert.throws(() => slots.take("fresh"), refused);
  others.forEach((release) => release());
  assert.doesNotThrow(() => slots.take("fresh"));
});
