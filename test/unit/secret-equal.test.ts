import { test } from "node:test";
import assert from "node:assert/strict";
import { secretsEqual } from "../../src/security/secret-equal.ts";

test("secretsEqual: equal, different, and a non-ASCII secret of the same UTF-16 length (no throw)", () => {
  assert.equal(secretsEqual("operator-token", "operator-token"), true);
  assert.equal(secretsEqual("operator-tokem", "operator-token"), false);
  assert.equal(secretsEqual("", "operator-token"), false);
  assert.equal(secretsEqual("é".repeat(14), "operator-token"), false);
  assert.equal(secretsEqual("👨‍👩‍👧".slice(0, 7) + "1234567", "operator-token"), false);
});
