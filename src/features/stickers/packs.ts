// A site's sticker packs: read from the projected Space state (RoomState), so a pack edited in a
// Matrix client shows as soon as the homeserver pushes the event; written by the bot as the full
// `m.room.image_pack` state event, read-modify-write against the homeserver's current state.
import type { Db } from "../../db/client.ts";
import { validationError } from "../../core/errors.ts";
import type { Sites } from "../sites/sites.ts";
import { eventBytes } from "../../matrix/events.ts";
import { canonicalJsonProblem } from "../../matrix/canonical-json.ts";
import type { Homeserver } from "../../matrix/homeserver.ts";
import type { Provisioner } from "../rooms/provisioning.ts";
import { RoomStore } from "../rooms/room-store.ts";
import { SiteStore } from "../sites/site-store.ts";
import type { RoomEvent } from "../../projection/room-event.ts";
import { MAX_CONTENT_BYTES } from "../../writes/event-size.ts";
import type { FoundSticker } from "../../writes/operation.ts";
import { parseMxc } from "../media/proxy-urls.ts";
import { MEDIA_ID_PATTERN } from "../media/signing.ts";
import {
  IMAGE_PACK_EVENT,
  PACK_ID_PATTERN,
  SHORTCODE_PATTERN,
  readPack,
  withImage,
  withoutImage,
  type PackContent,
  type StickerImage,
  type StickerPack,
} from "./image-pack.ts";

export class StickerPacks {
  /** Edits of one pack run one at a time in this process, so concurrent edits do not lose each other. */
  private readonly edits = new Map<string, Promise<unknown>>();
  private readonly siteStore: SiteStore;
  private readonly rooms: RoomStore;

  constructor(
    db: Db,
    private readonly sites: Sites,
    private readonly hs: Homeserver,
    private readonly provisioner: Provisioner,
    /** Applies an event the service sent as if the homeserver had pushed it (Projector.applyTransaction). */
    private readonly applySent: (event: RoomEvent) => Promise<void>,
  ) {
    this.siteStore = new SiteStore(db);
    this.rooms = new RoomStore(db);
  }

  /** The site's packs by pack id; 404 for an unregistered site, none before its Space exists. */
  async list(siteId: string): Promise<StickerPack[]> {
    await this.sites.requireReadable(siteId);
    return this.packs(siteId);
  }

  /**
   * The sticker image of one of the site's packs with this mxc:// url, or null: what a comment
   * with `media.kind = "sticker"` posts (services.stickers.findImage, through the write
   * pipeline's OperationServices): only the site's own stickers, with the pack's metadata.
   */
  async findImage(siteId: string, url: string): Promise<FoundSticker | null> {
    for (const pack of await this.packs(siteId)) {
      const image = pack.images.find((i) => i.url === url);
      if (image) return { body: image.body, info: image.info, packId: pack.packId, shortcode: image.shortcode };
    }
    return null;
  }

  /** Adds or replaces one image, creating the pack (and the site's Space) when needed. */
  async addImage(siteId: string, packId: string, image: StickerImage): Promise<StickerPack> {
    await this.sites.requireWritable(siteId);
    checkNames(packId, image.shortcode);
    this.requireLocalMedia(image.url);
    if (image.info !== null && (typeof image.info !== "object" || Array.isArray(image.info)))
      throw validationError("info must be an object.", [{ field: "info", message: "must be an object" }]);
    // The homeserver refuses state it cannot hold as canonical JSON (M_BAD_JSON): the client's input, a 400.
    const infoProblem = image.info !== null ? canonicalJsonProblem(image.info, "info") : null;
    if (infoProblem) throw validationError("info must be valid in Matrix's canonical JSON.", [infoProblem]);
    return this.edit(siteId, packId, (content) => withImage(content, packId, image), true);
  }

  /** Removes one image; a pack without it is answered unchanged. */
  async removeImage(siteId: string, packId: string, shortcode: string): Promise<StickerPack> {
    await this.sites.requireWritable(siteId);
    checkNames(packId, shortcode);
    return this.edit(siteId, packId, (content) => withoutImage(content, shortcode), false);
  }

  private async packs(siteId: string): Promise<StickerPack[]> {
    const spaceRoomId = await this.siteStore.spaceRoomId(siteId);
    if (!spaceRoomId) return [];
    const rows = await this.rooms.stateOfType(spaceRoomId, IMAGE_PACK_EVENT);
    // Ordered here, not by the database: collations differ between providers.
    rows.sort((a, b) => (a.stateKey < b.stateKey ? -1 : a.stateKey > b.stateKey ? 1 : 0));
    // Empty content is how Matrix removes a state event: no pack.
    const contents = rows.map((row) => ({ packId: row.stateKey, content: JSON.parse(row.content) as PackContent }));
    return contents
      .filter(({ content }) => Object.keys(content).length > 0)
      .map(({ packId, content }) => readPack(packId, content));
  }

  /** Only media of the service's own homeserver: the proxy serves nothing else. */
  private requireLocalMedia(url: string): void {
    const mxc = parseMxc(url);
    if (mxc?.server !== this.hs.names.serverName || !MEDIA_ID_PATTERN.test(mxc.mediaId)) {
      throw validationError("The sticker url must be an mxc:// URL of this service's homeserver.", [
        {
          field: "url",
          message: `must be mxc://${this.hs.names.serverName}/<media id>, the media id of [A-Za-z0-9_-]`,
        },
      ]);
    }
  }

  /**
   * Applies `change` to the pack's current content (as the homeserver has it, Matrix-client edits
   * included) and writes the result; `change` answers null when there is nothing to write. The
   * event sent is applied at once, so the answer and the next read show it before the homeserver
   * pushes it back. Only an addition creates the site's Space; without one there is nothing to remove.
   */
  private edit(
    siteId: string,
    packId: string,
    change: (content: PackContent | null) => PackContent | null,
    createSpace: boolean,
  ): Promise<StickerPack> {
    const key = `${siteId}\u0000${packId}`;
    const run = (this.edits.get(key) ?? Promise.resolve())
      .catch(() => {})
      .then(async () => {
        const spaceId = createSpace
          ? await this.provisioner.ensureSpace(siteId)
          : await this.siteStore.spaceRoomId(siteId);
        if (!spaceId) return readPack(packId, {});
        const current = await this.hs.getState(spaceId, IMAGE_PACK_EVENT, packId);
        const next = change(current);
        if (next === null) return readPack(packId, current ?? {});
        if (eventBytes(IMAGE_PACK_EVENT, next) > MAX_CONTENT_BYTES) {
          throw validationError(
            "The pack would be too large for one Matrix state event; remove images or start another pack.",
            [{ field: "pack_id", message: "is full" }],
          );
        }
        const eventId = await this.hs.sendState(spaceId, IMAGE_PACK_EVENT, packId, next);
        await this.applySent((await this.hs.getEvent(spaceId, eventId)) as unknown as RoomEvent);
        return readPack(packId, next);
      });
    this.edits.set(key, run);
    void run
      .finally(() => {
        if (this.edits.get(key) === run) this.edits.delete(key);
      })
      .catch(() => {});
    return run;
  }
}

/** Pack ids and shortcodes the API writes (a Matrix client may use others; they are listed as they are). */
function checkNames(packId: string, shortcode: string): void {
  const errors = [];
  if (!new RegExp(PACK_ID_PATTERN).test(packId))
    errors.push({ field: "pack_id", message: `must match ${PACK_ID_PATTERN}` });
  if (!new RegExp(SHORTCODE_PATTERN).test(shortcode))
    errors.push({ field: "shortcode", message: `must match ${SHORTCODE_PATTERN}` });
  if (errors.length > 0) throw validationError("Invalid pack_id or shortcode.", errors);
}
