// Governance routes: role claims (site admin, site manager, page moderator) and revocations,
// ownership transfer, claim-token rotation; the alternate forms of the earlier revision and the
// operator mirrors, all through the same operations and answers (src/features/governance/).
import type { GraphQLData, OperationRoute, RouteInput } from "../../rest/route.ts";
import type { RoleKind } from "./standing.ts";
import { VERIFY_TOKEN_TTL_HOURS } from "./verify-tokens.ts";
import { ref } from "../../rest/schemas.ts";
import { pathParams, requestBodies } from "./schemas.ts";
import { alternate, operatorMirror, pagePath, sitePath } from "../../rest/route-helpers.ts";
import { operatorRotateClaimToken } from "../operator/routes.ts";

const SITE = "/api/v1/sites/{site_id}";
const OPERATOR_SITE = "/api/v1/operator/sites/{site_id}";

const claimWrite = {
  kind: "operation",
  auth: "claim",
  postAuthRateLimit: "governanceWrite",
  tag: "Governance",
} as const;

const PENDING = "pending user_id: userId level verify_token: verifyToken expires_at: expiresAt";
const CLAIM = `mutation ClaimRole($siteId: String!, $pageSlug: String, $role: RoleKind!, $userId: String!) {
  claimRole(siteId: $siteId, pageSlug: $pageSlug, role: $role, userId: $userId) { ${PENDING} }
}`;
const REVOKE = `mutation RevokeRole($siteId: String!, $pageSlug: String, $role: RoleKind!, $userId: String!) {
  revokeRole(siteId: $siteId, pageSlug: $pageSlug, role: $role, userId: $userId) { revoked user_id: userId level warnings { code message } }
}`;

const CLAIM_FLOW = `The claim becomes the role only when that Matrix account sends \`service-claim:<verify_token>\` to the service's AS bot in an unencrypted 1:1 DM; the verify token is single use, valid ${VERIFY_TOKEN_TTL_HOURS} hours, and only its hash is stored. A new claim of the same role for the same user replaces a pending one (the old token stops working). user_id must be a Matrix user id (400 validation-error) and not one of the service's own users (400 reserved-user-id).`;
const REVOKE_FLOW =
  "Cancels the user's pending claim of the role and removes the applied role: the service lowers the user's power level to what their other roles give (or removes it) in every room the role was written to. 404 role-not-found when the user has neither a pending claim nor the role as the service applied it (levels given by hand in Matrix are changed in Matrix).";

interface RoleSpec {
  role: RoleKind;
  /** The role's collection name in paths: admins, managers, moderators. */
  collection: string;
  /** Path of the scope the role lives in, below the site (with the page for moderators). */
  scope: string;
  what: string;
  applies: string;
}

const ROLES: RoleSpec[] = [
  {
    role: "admin",
    collection: "admins",
    scope: "",
    what: "site admin",
    applies:
      "Applied, it gives level 100 in the site's Space and every room, also rooms created later. Appointing the first admin is the site's bootstrap step.",
  },
  {
    role: "manager",
    collection: "managers",
    scope: "",
    what: "site manager",
    applies: "Applied, it gives level 75 in the site's Space, replicated into every room, also rooms created later.",
  },
  {
    role: "moderator",
    collection: "moderators",
    scope: "/pages/{page_slug}",
    what: "page moderator",
    applies:
      "Applied, it gives level 50 in the page's room only. The page needs no room yet: its room starts with the role when it is created.",
  },
];

const capitalized = (text: string) => text[0]!.toUpperCase() + text.slice(1);
const roleVariables = (role: RoleKind, input: RouteInput, userId: string) => ({
  siteId: input.params.site_id,
  pageSlug: input.params.page_slug ?? null,
  role,
  userId,
});
const userPath = { user_id: pathParams.user_id };
const userQuery = {
  properties: { user_id: { ...pathParams.user_id, description: "The Matrix user id." } },
  required: ["user_id"],
};

/** The problem codes of an owner route plus those its operator mirror adds: the site is not looked up by a claim token there. */
const operatorProblems = (route: OperationRoute) => ({
  ...route.problems,
  404: ["site-not-found", ...(route.problems[404] ?? [])],
  410: ["site-retired"],
});

function roleRoutes(spec: RoleSpec): OperationRoute[] {
  const params = spec.role === "moderator" ? pagePath : sitePath;
  const claim: OperationRoute<GraphQLData, typeof requestBodies.roleClaim> = {
    ...claimWrite,
    operationId: `claim${capitalized(spec.role)}`,
    method: "POST",
    path: `${SITE}${spec.scope}/${spec.role}-claims`,
    summary: `Appoint a ${spec.what}: a pending claim for a Matrix user.`,
    description: `${CLAIM_FLOW} ${spec.applies}`,
    params,
    body: { schema: requestBodies.roleClaim, optional: false },
    document: CLAIM,
    variables: (input) => roleVariables(spec.role, input, input.body.user_id),
    respond: (data) => ({ status: 200, body: data.claimRole }),
    responses: { 200: { description: "The pending claim.", schema: ref("PendingRoleClaim") } },
    problems: { 400: ["reserved-user-id"] },
  };
  const revoke: OperationRoute<{ revokeRole: GraphQLData & { warnings?: unknown } }> = {
    ...claimWrite,
    operationId: `revoke${capitalized(spec.role)}`,
    method: "DELETE",
    path: `${SITE}${spec.scope}/${spec.collection}/{user_id}`,
    summary: `Remove a ${spec.what} (or cancel the pending claim).`,
    description: `${REVOKE_FLOW}${spec.role === "admin" ? " Removing the site's last admin answers a warnings entry last-admin-removed." : ""}`,
    params: { ...params, ...userPath },
    document: REVOKE,
    variables: (input) => roleVariables(spec.role, input, input.params.user_id ?? input.query.user_id!),
    respond: (data) => {
      const { warnings, ...revoked } = data.revokeRole;
      return { status: 200, body: warnings ? { ...revoked, warnings } : revoked };
    },
    responses: { 200: { description: "Revoked.", schema: ref("RevokedRole") } },
    problems: { 404: ["role-not-found"] },
  };
  const collection = `${SITE}${spec.scope}/${spec.collection}`;
  const operatorScope = `${OPERATOR_SITE}${spec.scope}`;
  return [
    claim,
    revoke,
    alternate(claim, collection),
    alternate(revoke, collection, { params, query: userQuery }),
    operatorMirror(claim, `operatorClaim${capitalized(spec.role)}`, `${operatorScope}/${spec.role}-claims`, {
      problems: operatorProblems(claim),
    }),
    operatorMirror(revoke, `operatorRevoke${capitalized(spec.role)}`, `${operatorScope}/${spec.collection}/{user_id}`, {
      problems: operatorProblems(revoke),
    }),
  ];
}

export const roleClaimRoutes: OperationRoute[] = ROLES.flatMap(roleRoutes);

export const transferOwnership: OperationRoute<
  { transferOwnership: { claim: GraphQLData; transfer: GraphQLData } },
  typeof requestBodies.roleClaim
> = {
  ...claimWrite,
  operationId: "transferOwnership",
  method: "POST",
  path: `${SITE}/ownership-transfers`,
  summary: "Transfer the site's ownership to a Matrix user.",
  description: `Starts a transfer: a pending admin claim for the target plus the transfer record; a new transfer replaces a pending one. ${CLAIM_FLOW} When the target redeems it, the transfer completes: the admin roster is reset to the target (every other admin's level is removed from the Space and the rooms, also admins made by hand in Matrix), the site's claim token is rotated and the new token is delivered in the bot DM only.`,
  params: sitePath,
  body: { schema: requestBodies.roleClaim, optional: false },
  document: `mutation TransferOwnership($siteId: String!, $userId: String!) {
    transferOwnership(siteId: $siteId, userId: $userId) {
      claim { ${PENDING} }
      transfer { transfer_id: id site_id: siteId user_id: userId status created_at: createdAt }
    }
  }`,
  variables: (input) => ({ siteId: input.params.site_id, userId: input.body.user_id }),
  respond: (data) => ({
    status: 200,
    body: { ...data.transferOwnership.claim, transfer: data.transferOwnership.transfer },
  }),
  responses: {
    200: { description: "The pending owner claim and the transfer record.", schema: ref("PendingOwnershipTransfer") },
  },
  problems: { 400: ["reserved-user-id"] },
};

// The operator's budget stays with the operator's route: the owner spends the claim-token bucket.
const { rateLimit: _operatorBudget, ...rotationOperation } = operatorRotateClaimToken;

/** The owner's rotation: the operator's operation, under the site's claim token. */
export const rotateClaimToken: OperationRoute = {
  ...rotationOperation,
  ...claimWrite,
  operationId: "rotateClaimToken",
  path: `${SITE}/claim-token-rotations`,
  summary: "Issue a new claim token for the site; shown once, the one used here stops working at once.",
  description: undefined,
  problems: {},
};

export const governanceRoutes: OperationRoute[] = [
  ...roleClaimRoutes,
  transferOwnership,
  alternate(transferOwnership, `${SITE}/ownership/transfer`),
  operatorMirror(transferOwnership, "operatorTransferOwnership", `${OPERATOR_SITE}/ownership-transfers`, {
    problems: operatorProblems(transferOwnership),
  }),
  rotateClaimToken,
  alternate(rotateClaimToken, `${SITE}/claim-token/rotate`),
];
