// Shared facts of the test environment: the test homeserver and the appservice identity it
// was started with (test/run.ts sets them up before any test file runs).
export const TEST_SYNAPSE_INSTANCE = process.env.TEST_SYNAPSE_INSTANCE ?? "test";
export const TEST_SYNAPSE_PORT = Number(process.env.TEST_SYNAPSE_PORT ?? 18008);
export const TEST_SERVICE_PORT = Number(process.env.TEST_SERVICE_PORT ?? 18080);
export const TEST_SERVER_NAME = "localhost";
export const TEST_AS_TOKEN = "test-as-token-0123456789";
export const TEST_HS_TOKEN = "test-hs-token-0123456789";
export const TEST_OPERATOR_TOKEN = "test-operator-token";
export const TEST_HOMESERVER_URL = `http://127.0.0.1:${TEST_SYNAPSE_PORT}`;
/** PostgreSQL server for the provider-parameterized tests (trust auth on this machine and CI). */
export const TEST_POSTGRES_URL = process.env.TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
