// The desk's reading of a governor's roles (what each view offers) and of a review's answer
// (what the status line says), as pure functions of what the service answered.
import { test } from "node:test";
import assert from "node:assert/strict";
import { accessOf, type Me } from "../../src/desk/ui.ts";
import { reviewNotice } from "../../src/desk/review.ts";

const matrix = (sites: Me["sites"]): Me => ({ kind: "matrix", userId: "@mo:example.org", sites });

test("what a governor may do on a site follows their roles, as the service checks them", () => {
  assert.deepEqual(accessOf({ kind: "operator", userId: null, sites: [] }, "blog"), { manages: true, pages: null });
  for (const role of ["admin", "manager"])
    assert.deepEqual(accessOf(matrix([{ siteId: "blog", role, pages: [] }]), "blog"), { manages: true, pages: null });
  // A site moderator moderates every page but manages nothing (bans, settings).
  assert.deepEqual(accessOf(matrix([{ siteId: "blog", role: "moderator", pages: [] }]), "blog"), {
    manages: false,
    pages: null,
  });
  // A page moderator (even a page's admin) moderates their pages only, and manages nothing on the site.
  const pageModerator = matrix([
    {
      siteId: "blog",
      role: null,
      pages: [
        { pageSlug: "hello", role: "moderator" },
        { pageSlug: "news", role: "admin" },
      ],
    },
  ]);
  assert.deepEqual(accessOf(pageModerator, "blog"), { manages: false, pages: ["hello", "news"] });
  assert.deepEqual(accessOf(pageModerator, "other"), { manages: false, pages: [] });
});

test("an approval says the comment is being sent only when the service answered it approved", () => {
  assert.equal(reviewNotice(true, "approved"), "Approved: it is being sent.");
  assert.equal(reviewNotice(true, "held"), "Not sent: the comment is held.");
  assert.equal(reviewNotice(false, "rejected"), "Rejected.");
});
