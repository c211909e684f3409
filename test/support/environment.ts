// Shared facts of the test environment: the test homeserver and the appservice identity it
// was started with (test/run.ts sets them up before any test file runs).
//
// test/run.ts runs integration files in lanes, two at a time. Each lane is an appservice of its
// own on the one Synapse — its own port, tokens and namespace — so a lane's services never see
// the other lane's pushes, users or aliases. A test process learns its lane from TEST_LANE.

// TEST_SERVICE_PORT_BASE moves the lanes' ports, so two checkouts can run tests at once (each with
// its own TEST_SYNAPSE_INSTANCE and TEST_SYNAPSE_PORT).
const SERVICE_PORT_BASE = Number(process.env.TEST_SERVICE_PORT_BASE ?? 18080);

/** The appservice a lane's services are (lane 0 is the service's defaults). */
export function laneIdentity(lane: number) {
  const suffix = lane === 0 ? "" : String(lane);
  return {
    servicePort: SERVICE_PORT_BASE + lane,
    appserviceId: `comment-service${suffix}`,
    namespacePrefix: `_service${suffix}_`,
    asToken: `test-as-token-0123456789${suffix}`,
    hsToken: `test-hs-token-0123456789${suffix}`,
  };
}

export const TEST_LANE = Number(process.env.TEST_LANE ?? 0);
const lane = laneIdentity(TEST_LANE);
export const TEST_SYNAPSE_INSTANCE = process.env.TEST_SYNAPSE_INSTANCE ?? "test";
export const TEST_SYNAPSE_PORT = Number(process.env.TEST_SYNAPSE_PORT ?? 18008);
export const TEST_SERVICE_PORT = lane.servicePort;
export const TEST_SERVER_NAME = "localhost";
export const TEST_APPSERVICE_ID = lane.appserviceId;
/** What every user id and alias of this lane's services starts with (after `@` or `#`). */
export const TEST_NAMESPACE_PREFIX = lane.namespacePrefix;
export const TEST_AS_TOKEN = lane.asToken;
export const TEST_HS_TOKEN = lane.hsToken;
export const TEST_OPERATOR_TOKEN = "test-operator-token";
export const TEST_HOMESERVER_URL = `http://127.0.0.1:${TEST_SYNAPSE_PORT}`;
/** PostgreSQL server for the provider-parameterized tests (trust auth on this machine and CI). */
export const TEST_POSTGRES_URL = process.env.TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
