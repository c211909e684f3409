// Reading and writing the test Synapse directly, to check what the service did in Matrix.
import { createHmac } from "node:crypto";
import { registrationSharedSecret } from "../../src/matrix/local-homeserver.ts";
import { TEST_AS_TOKEN, TEST_HOMESERVER_URL, TEST_SYNAPSE_INSTANCE } from "./environment.ts";

const enc = encodeURIComponent;

export async function matrixRequest<T = any>(
  method: string,
  path: string,
  token = TEST_AS_TOKEN,
  body?: unknown,
): Promise<T> {
  const res = await fetch(`${TEST_HOMESERVER_URL}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const json = (await res.json()) as T & { errcode?: string };
  if (!res.ok)
    throw Object.assign(new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`), {
      status: res.status,
      errcode: json.errcode,
    });
  return json;
}

export const resolveAlias = async (alias: string): Promise<string> =>
  (await matrixRequest<{ room_id: string }>("GET", `/_matrix/client/v3/directory/room/${enc(alias)}`)).room_id;

export const getEvent = (roomId: string, eventId: string) =>
  matrixRequest("GET", `/_matrix/client/v3/rooms/${enc(roomId)}/event/${enc(eventId)}`);

export const getState = (roomId: string, type: string, stateKey = "") =>
  matrixRequest("GET", `/_matrix/client/v3/rooms/${enc(roomId)}/state/${enc(type)}/${enc(stateKey)}`);

/** A user's power level in a room as Synapse has it (undefined: none). */
export const levelIn = async (roomId: string, userId: string): Promise<number | undefined> =>
  (await getState(roomId, "m.room.power_levels")).users?.[userId];

/** All m.room.message events of a room, oldest first (read as the AS bot, a member). */
export async function roomMessages(
  roomId: string,
): Promise<Array<{ event_id: string; sender: string; content: Record<string, any> }>> {
  const filter = enc(JSON.stringify({ types: ["m.room.message"] }));
  const page = await matrixRequest<{ chunk: any[] }>(
    "GET",
    `/_matrix/client/v3/rooms/${enc(roomId)}/messages?dir=b&limit=1000&filter=${filter}`,
  );
  return page.chunk.reverse();
}

/** An ordinary Matrix account (not the appservice's), via the shared-secret admin API. */
export async function registerMatrixUser(localpart: string): Promise<{ userId: string; token: string }> {
  const secret = registrationSharedSecret(TEST_SYNAPSE_INSTANCE);
  const { nonce } = (await (await fetch(`${TEST_HOMESERVER_URL}/_synapse/admin/v1/register`)).json()) as {
    nonce: string;
  };
  const password = "correct horse battery staple";
  const mac = createHmac("sha1", secret).update(`${nonce}\0${localpart}\0${password}\0notadmin`).digest("hex");
  const res = await fetch(`${TEST_HOMESERVER_URL}/_synapse/admin/v1/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ nonce, username: localpart, password, admin: false, mac }),
  });
  const body = (await res.json()) as { user_id: string; access_token: string };
  if (!res.ok) throw new Error(`register ${localpart}: ${res.status} ${JSON.stringify(body)}`);
  return { userId: body.user_id, token: body.access_token };
}
