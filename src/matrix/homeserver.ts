// The homeserver as this service uses it: the AS bot and masquerading virtual users, over the
// client-server API (matrix-bot-sdk does the HTTP). No business rules live here.
import { LogLevel, LogService, MatrixClient } from "matrix-bot-sdk";
import { hasErrcode } from "./errors.ts";
import { submissionIdOf } from "./events.ts";
import type { MatrixNames } from "./names.ts";
import { ContentKey, EventType } from "../contract/matrix-vocabulary.ts";
import { setBounded } from "../core/bounded-map.ts";

LogService.setLevel(LogLevel.ERROR);
// Failures surface as exceptions (and on the submission row); the SDK's own logging is noise.
LogService.muteModule("MatrixClientLite");
LogService.muteModule("MatrixHttpClient");

const enc = encodeURIComponent;

export interface CreateRoomOptions {
  aliasLocalpart: string;
  name: string;
  roomVersion: string;
  isSpace: boolean;
  /** Power levels of users besides the bot (the roles the room starts with). */
  users?: Record<string, number>;
  initialState?: Array<{ type: string; state_key: string; content: Record<string, unknown> }>;
}

/**
 * A MatrixClient whose every request has a deadline: the SDK's helpers (createRoom, joinRoom,
 * …) call doRequest without one and would get its 60 s default. A timed-out call fails like an
 * unreachable homeserver (transient: the queue retries it).
 */
class TimedMatrixClient extends MatrixClient {
  constructor(
    url: string,
    token: string,
    private readonly timeoutMs: number,
    private readonly observe: RequestObserver,
  ) {
    super(url, token);
  }

  override doRequest(
    method: string,
    endpoint: string,
    qs: unknown = null,
    body: unknown = null,
    timeout = this.timeoutMs,
    ...rest: unknown[]
  ): Promise<unknown> {
    return this.observe(method, () =>
      (super.doRequest as (...args: unknown[]) => Promise<unknown>)(
        method,
        endpoint,
        qs,
        body,
        Math.min(timeout, this.timeoutMs),
        ...rest,
      ),
    );
  }
}

/** Wraps every homeserver request (metrics: latency and errors). */
export type RequestObserver = <T>(method: string, request: () => Promise<T>) => Promise<T>;
const unobserved: RequestObserver = (_method, request) => request();

/** Sender filter for /messages: only `userId`'s events, without their member lists. */
const senderFilter = (userId: string): string => JSON.stringify({ senders: [userId], lazy_load_members: true });

/**
 * createRoom's answers for a taken alias: M_ROOM_IN_USE when it was taken before the request, and
 * 409 "Room alias … already exists" (M_UNKNOWN) when a concurrent creation (an earlier attempt
 * still running on the homeserver) took it while this one ran.
 */
const aliasTaken = (err: unknown): boolean =>
  hasErrcode(err, "M_ROOM_IN_USE") ||
  ((err as { statusCode?: number })?.statusCode === 409 &&
    /already exists/i.test(String((err as { error?: string })?.error ?? "")));

export class Homeserver {
  readonly bot: MatrixClient;
  /** Clients acting as virtual users (appservice masquerading), kept: one per user is cheap and reused. */
  private readonly clients = new Map<string, MatrixClient>();

  constructor(
    readonly url: string,
    private readonly asToken: string,
    readonly names: MatrixNames,
    /** Deadline of every homeserver request (matrix.request_timeout_ms). */
    readonly requestTimeoutMs: number,
    private readonly observe: RequestObserver = unobserved,
  ) {
    this.bot = new TimedMatrixClient(url, asToken, requestTimeoutMs, observe);
  }

  /** A client acting as `userId` (appservice masquerading). */
  as(userId: string): MatrixClient {
    if (userId === this.names.botUserId) return this.bot;
    let client = this.clients.get(userId);
    if (!client) {
      client = new TimedMatrixClient(this.url, this.asToken, this.requestTimeoutMs, this.observe);
      client.impersonateUserId(userId);
      // Bounded: a busy service sees many visitors; the oldest client is simply rebuilt on need.
      setBounded(this.clients, userId, client, 1000);
    }
    return client;
  }

  async versions(timeoutMs = Math.min(2000, this.requestTimeoutMs)): Promise<string[]> {
    const response = await fetch(`${this.url}/_matrix/client/versions`, { signal: AbortSignal.timeout(timeoutMs) });
    if (!response.ok) throw new Error(`homeserver answered ${response.status}`);
    return ((await response.json()) as { versions: string[] }).versions;
  }

  /**
   * Asks the homeserver to ping this appservice (MSC2659). Besides proving the two can reach
   * each other, it makes the homeserver retry its backlog of transactions at once instead of
   * after its backoff (up to minutes) — what a restarted service wants.
   */
  async pingAppservice(appserviceId: string): Promise<void> {
    await this.bot.doRequest("POST", `/_matrix/client/v1/appservice/${enc(appserviceId)}/ping`, null, {});
  }

  /** Registers a user in the appservice namespace; an existing user is fine. */
  async registerUser(localpart: string): Promise<void> {
    try {
      await this.bot.doRequest("POST", "/_matrix/client/v3/register", null, {
        type: "m.login.application_service",
        username: localpart,
        inhibit_login: true,
      });
    } catch (err) {
      if (!hasErrcode(err, "M_USER_IN_USE")) throw err;
    }
  }

  /** The user's profile display name (null when it has none). */
  async displayName(userId: string): Promise<string | null> {
    try {
      const profile = (await this.bot.doRequest("GET", `/_matrix/client/v3/profile/${enc(userId)}/displayname`)) as {
        displayname?: string;
      };
      return profile.displayname ?? null;
    } catch (err) {
      if (hasErrcode(err, "M_NOT_FOUND")) return null;
      throw err;
    }
  }

  async setDisplayName(userId: string, displayName: string): Promise<void> {
    await this.as(userId).doRequest("PUT", `/_matrix/client/v3/profile/${enc(userId)}/displayname`, null, {
      displayname: displayName,
    });
  }

  /**
   * Sets (or, with null, clears) the user's profile avatar, asking the homeserver to carry it into
   * every room the user has joined (MSC4466 `propagate_to: "all"`; a homeserver without it
   * ignores the field and propagates as it always does).
   */
  async setAvatarUrl(userId: string, avatarUrl: string | null): Promise<void> {
    await this.as(userId).doRequest("PUT", `/_matrix/client/v3/profile/${enc(userId)}/avatar_url`, null, {
      avatar_url: avatarUrl ?? "",
      propagate_to: "all",
    });
  }

  /** The rooms `userId` has joined, as the homeserver knows them. */
  async joinedRooms(userId: string): Promise<string[]> {
    return this.as(userId).getJoinedRooms();
  }

  /** Writes `userId`'s own m.room.member event in a room (a profile update of a joined member). */
  async sendMemberState(userId: string, roomId: string, content: Record<string, unknown>): Promise<void> {
    await this.as(userId).sendStateEvent(roomId, EventType.Member, userId, content);
  }

  /** Uploads to the media repository as `userId` (the media is theirs); returns its mxc:// URL. */
  async uploadMedia(userId: string, bytes: Buffer, mimetype: string, filename: string | null): Promise<string> {
    const response = await this.as(userId).doRequest(
      "POST",
      "/_matrix/media/v3/upload",
      filename === null ? null : { filename },
      bytes,
      60_000,
      false,
      mimetype,
    );
    return (response as { content_uri: string }).content_uri;
  }

  /** Creates a room as the bot with the given alias; returns null when the alias is taken. */
  async createRoom(options: CreateRoomOptions): Promise<string | null> {
    // Room v12 creators hold unlimited power and may not appear in power_levels.users; in older
    // versions the bot is given 150 explicitly. Tombstones need 150 either way.
    const v12 = Number(options.roomVersion) >= 12;
    try {
      return await this.bot.createRoom({
        room_alias_name: options.aliasLocalpart,
        name: options.name,
        preset: "public_chat",
        visibility: "private",
        room_version: options.roomVersion,
        creation_content: options.isSpace ? { type: "m.space" } : {},
        initial_state: [
          { type: EventType.HistoryVisibility, state_key: "", content: { history_visibility: "world_readable" } },
          ...(options.initialState ?? []),
        ],
        power_level_content_override: {
          users: { ...options.users, ...(v12 ? {} : { [this.names.botUserId]: 150 }) },
          events: { [EventType.Tombstone]: 150, [EventType.PowerLevels]: 100 },
        },
      } as never);
    } catch (err) {
      if (aliasTaken(err)) return null;
      throw err;
    }
  }

  /** The room versions the homeserver knows (capabilities m.room_versions.available). */
  async roomVersions(): Promise<string[]> {
    const response = (await this.bot.doRequest("GET", "/_matrix/client/v3/capabilities")) as {
      capabilities?: { "m.room_versions"?: { available?: Record<string, string> } };
    };
    return Object.keys(response.capabilities?.["m.room_versions"]?.available ?? {});
  }

  /** Upgrades a room as the bot (the homeserver writes the tombstone); returns the replacement room id. */
  async upgradeRoom(roomId: string, newVersion: string): Promise<string> {
    const response = (await this.bot.doRequest("POST", `/_matrix/client/v3/rooms/${enc(roomId)}/upgrade`, null, {
      new_version: newVersion,
    })) as { replacement_room: string };
    return response.replacement_room;
  }

  /** Points an alias at a room: an alias pointing elsewhere is moved. */
  async setAlias(alias: string, roomId: string): Promise<void> {
    const current = await this.bot.doRequest("GET", `/_matrix/client/v3/directory/room/${enc(alias)}`).then(
      (r: { room_id: string }) => r.room_id,
      (err: unknown) => {
        if (hasErrcode(err, "M_NOT_FOUND")) return null;
        throw err;
      },
    );
    if (current === roomId) return;
    if (current !== null) await this.deleteAlias(alias);
    await this.bot.doRequest("PUT", `/_matrix/client/v3/directory/room/${enc(alias)}`, null, { room_id: roomId });
  }

  async resolveAlias(alias: string): Promise<string> {
    return this.bot.resolveRoom(alias);
  }

  async joinRoom(userId: string, roomId: string): Promise<void> {
    await this.as(userId).joinRoom(roomId);
  }

  /** Sends a state event as the bot; returns its event id. */
  async sendState(roomId: string, type: string, stateKey: string, content: Record<string, unknown>): Promise<string> {
    return this.bot.sendStateEvent(roomId, type, stateKey, content);
  }

  /** The content of a room's current state event as `asUser` (default the bot) sees it; null when there is none. */
  async getState(
    roomId: string,
    type: string,
    stateKey: string,
    asUser = this.names.botUserId,
  ): Promise<Record<string, unknown> | null> {
    try {
      return (await this.as(asUser).doRequest(
        "GET",
        `/_matrix/client/v3/rooms/${enc(roomId)}/state/${enc(type)}/${enc(stateKey)}`,
      )) as Record<string, unknown>;
    } catch (err) {
      if (hasErrcode(err, "M_NOT_FOUND")) return null;
      throw err;
    }
  }

  /** A room's current state event as the bot sees it, the whole event (sender included); null when there is none. */
  async stateEvent(
    roomId: string,
    type: string,
    stateKey = "",
  ): Promise<{ sender: string; content: Record<string, unknown> } | null> {
    try {
      return (await this.bot.doRequest(
        "GET",
        `/_matrix/client/v3/rooms/${enc(roomId)}/state/${enc(type)}/${enc(stateKey)}`,
        { format: "event" },
      )) as {
        sender: string;
        content: Record<string, unknown>;
      };
    } catch (err) {
      if (hasErrcode(err, "M_NOT_FOUND")) return null;
      throw err;
    }
  }

  /** One event of a room as the bot sees it (full event JSON). */
  async getEvent(roomId: string, eventId: string): Promise<Record<string, unknown>> {
    return (await this.bot.doRequest("GET", `/_matrix/client/v3/rooms/${enc(roomId)}/event/${enc(eventId)}`)) as Record<
      string,
      unknown
    >;
  }

  async invite(roomId: string, userId: string): Promise<void> {
    await this.bot.inviteUser(userId, roomId);
  }

  async setRoomName(roomId: string, name: string): Promise<void> {
    await this.sendState(roomId, EventType.Name, "", { name });
  }

  async deleteAlias(alias: string): Promise<void> {
    await this.bot.doRequest("DELETE", `/_matrix/client/v3/directory/room/${enc(alias)}`);
  }

  /** Leaves a room, or rejects an invite to it; `reason` is shown to the room (or the inviter). */
  async leaveRoom(userId: string, roomId: string, reason?: string): Promise<void> {
    await this.as(userId).doRequest(
      "POST",
      `/_matrix/client/v3/rooms/${enc(roomId)}/leave`,
      null,
      reason ? { reason } : {},
    );
  }

  /** User ids joined to a room, as the bot sees them (it must be joined, or share the room with a namespace user). */
  async joinedMembers(roomId: string): Promise<string[]> {
    const response = (await this.bot.doRequest("GET", `/_matrix/client/v3/rooms/${enc(roomId)}/joined_members`)) as {
      joined: Record<string, unknown>;
    };
    return Object.keys(response.joined);
  }

  /** User ids joined to or invited into a room (read as the bot, a member): who can read what is sent there. */
  async joinedOrInvited(roomId: string): Promise<string[]> {
    const response = (await this.bot.doRequest("GET", `/_matrix/client/v3/rooms/${enc(roomId)}/members`)) as {
      chunk: Array<{ state_key: string; content?: { membership?: string } }>;
    };
    return response.chunk
      .filter((e) => e.content?.membership === "join" || e.content?.membership === "invite")
      .map((e) => e.state_key);
  }

  /** A room's state event content, or null when the room has none (read as the bot, a member). */
  async stateContent(roomId: string, type: string, stateKey = ""): Promise<Record<string, unknown> | null> {
    try {
      return await this.bot.getRoomStateEvent(roomId, type, stateKey);
    } catch (err) {
      if (hasErrcode(err, "M_NOT_FOUND")) return null;
      throw err;
    }
  }

  /** Bans a user from a room as the bot (banning a banned user again only replaces the reason). */
  async ban(roomId: string, userId: string, reason: string): Promise<void> {
    await this.bot.doRequest("POST", `/_matrix/client/v3/rooms/${enc(roomId)}/ban`, null, { user_id: userId, reason });
  }

  /** Lifts a user's ban from a room as the bot; a user not banned there is left as they are. */
  async unban(roomId: string, userId: string, reason: string): Promise<void> {
    if ((await this.stateContent(roomId, EventType.Member, userId))?.membership !== "ban") return;
    await this.bot.doRequest("POST", `/_matrix/client/v3/rooms/${enc(roomId)}/unban`, null, {
      user_id: userId,
      reason,
    });
  }

  /** Redacts as `userId`, with a caller-chosen transaction id (a retry returns the same redaction). */
  async redactEvent(
    userId: string,
    roomId: string,
    eventId: string,
    txnId: string,
    content: Record<string, unknown>,
  ): Promise<string> {
    const response = await this.as(userId).doRequest(
      "PUT",
      `/_matrix/client/v3/rooms/${enc(roomId)}/redact/${enc(eventId)}/${enc(txnId)}`,
      null,
      content,
    );
    return (response as { event_id: string }).event_id;
  }

  /** Ids of `userId`'s own m.reaction annotations with `key` on an event (read from the room's relations). */
  async ownAnnotations(userId: string, roomId: string, eventId: string, key: string): Promise<string[]> {
    const client = this.as(userId);
    const found: string[] = [];
    let from: string | undefined;
    do {
      const page = (await client.doRequest(
        "GET",
        `/_matrix/client/v1/rooms/${enc(roomId)}/relations/${enc(eventId)}/m.annotation/m.reaction`,
        {
          limit: 100,
          ...(from ? { from } : {}),
        },
      )) as {
        chunk: Array<{ event_id: string; sender: string; content?: { [ContentKey.RelatesTo]?: { key?: string } } }>;
        next_batch?: string;
      };
      for (const event of page.chunk)
        if (event.sender === userId && event.content?.[ContentKey.RelatesTo]?.key === key) found.push(event.event_id);
      from = page.next_batch;
    } while (from);
    return found;
  }

  /**
   * Finds the event `userId` sent in a room for a submission (its proof block names it),
   * searching the room's most recent `maxPages` pages of that user's events, newest first.
   * Synapse forgets transaction ids when it restarts, so this is how a resend learns that an
   * earlier attempt already reached the homeserver.
   */
  async findSubmissionEvent(
    userId: string,
    roomId: string,
    submissionId: string,
    maxPages: number,
  ): Promise<string | null> {
    let from: string | undefined;
    for (let page = 0; page < maxPages; page++) {
      const response = (await this.bot.doRequest("GET", `/_matrix/client/v3/rooms/${enc(roomId)}/messages`, {
        dir: "b",
        limit: 100,
        filter: senderFilter(userId),
        ...(from ? { from } : {}),
      })) as { chunk: Array<{ event_id: string; sender: string; content?: Record<string, unknown> }>; end?: string };
      const found = response.chunk.find((e) => e.sender === userId && submissionIdOf(e.content) === submissionId);
      if (found) return found.event_id;
      if (!response.end || response.chunk.length === 0) return null;
      from = response.end;
    }
    return null;
  }

  /**
   * One page of a room's timeline read forward as the bot (dir=f): from `from`, or without it
   * from the room's creation. `end` is where the next page starts; absent at the end.
   */
  async messagesForward(
    roomId: string,
    from: string | null,
    limit: number,
  ): Promise<{ chunk: Array<Record<string, unknown>>; end: string | null }> {
    const response = (await this.bot.doRequest("GET", `/_matrix/client/v3/rooms/${enc(roomId)}/messages`, {
      dir: "f",
      limit,
      ...(from ? { from } : {}),
    })) as {
      chunk?: Array<Record<string, unknown>>;
      end?: string;
    };
    return { chunk: response.chunk ?? [], end: response.end ?? null };
  }

  /** A room's whole current state as the bot sees it. */
  async roomState(
    roomId: string,
  ): Promise<Array<{ type: string; state_key: string; content: Record<string, unknown> }>> {
    return (await this.bot.doRequest("GET", `/_matrix/client/v3/rooms/${enc(roomId)}/state`)) as Array<{
      type: string;
      state_key: string;
      content: Record<string, unknown>;
    }>;
  }

  /** Sends with a caller-chosen transaction id: the homeserver answers a retry with the same event. */
  async sendEvent(
    userId: string,
    roomId: string,
    type: string,
    txnId: string,
    content: Record<string, unknown>,
  ): Promise<string> {
    const response = await this.as(userId).doRequest(
      "PUT",
      `/_matrix/client/v3/rooms/${enc(roomId)}/send/${enc(type)}/${enc(txnId)}`,
      null,
      content,
    );
    return (response as { event_id: string }).event_id;
  }

  /**
   * Sends as `userId` with the event's origin_server_ts set to `ts` (the appservice API's
   * timestamp massaging, for its own users): an imported comment keeps its original time.
   */
  async sendEventAt(
    userId: string,
    roomId: string,
    type: string,
    txnId: string,
    content: Record<string, unknown>,
    ts: number,
  ): Promise<string> {
    const response = await this.as(userId).doRequest(
      "PUT",
      `/_matrix/client/v3/rooms/${enc(roomId)}/send/${enc(type)}/${enc(txnId)}`,
      { ts },
      content,
    );
    return (response as { event_id: string }).event_id;
  }

  /**
   * Joins `userId` to a room with its member event dated `ts` (its own m.room.member state,
   * sent with the appservice timestamp): the projection reads an author's profile as it was
   * when a comment was sent, so an imported author must have joined before its first comment.
   * Joining again with the same profile changes nothing.
   */
  async joinAt(userId: string, roomId: string, displayName: string, ts: number): Promise<void> {
    await this.as(userId).doRequest(
      "PUT",
      `/_matrix/client/v3/rooms/${enc(roomId)}/state/m.room.member/${enc(userId)}`,
      { ts },
      { membership: "join", displayname: displayName },
    );
  }
}
