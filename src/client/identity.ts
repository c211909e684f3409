// A visitor's identity on one site: an Ed25519 key pair (the 32-byte secret seed is what is
// stored, exported and imported), kept across reloads by a KeyStore.
import { getPublicKeyAsync, signAsync, utils } from "@noble/ed25519";
import { fromBase64Url, toBase64Url } from "./base64url.ts";
import { canonicalBytes } from "../contract/signatures.ts";

/** Where seeds are kept, one per site. */
export interface KeyStore {
  get(site: string): Promise<Uint8Array | null>;
  set(site: string, seed: Uint8Array): Promise<void>;
}

export class Identity {
  private constructor(
    readonly site: string,
    private readonly seed: Uint8Array,
    /** base64url, unpadded: the `author_public_key` of every write. */
    readonly publicKey: string,
  ) {}

  static async fromSeed(site: string, seed: Uint8Array): Promise<Identity> {
    if (seed.length !== 32) throw new Error("an Ed25519 seed is 32 bytes");
    return new Identity(site, seed, toBase64Url(await getPublicKeyAsync(seed)));
  }

  /** The site's stored identity, or a new one saved to the store. */
  static async load(site: string, store: KeyStore): Promise<Identity> {
    const seed = await store.get(site);
    if (seed) return Identity.fromSeed(site, seed);
    const identity = await Identity.fromSeed(site, utils.randomSecretKey());
    await store.set(site, identity.seed);
    return identity;
  }

  /** Replaces the site's stored identity with an exported one (moving a visitor to this device). */
  static async import(site: string, exported: string, store: KeyStore): Promise<Identity> {
    const identity = await Identity.fromSeed(site, fromBase64Url(exported.trim()));
    await store.set(site, identity.seed);
    return identity;
  }

  /** The secret seed as base64url: whoever holds it writes as this visitor. */
  export(): string {
    return toBase64Url(this.seed);
  }

  /** base64url detached signature over the canonical bytes of `array`. */
  async sign(array: readonly unknown[]): Promise<string> {
    return toBase64Url(await signAsync(canonicalBytes(array), this.seed));
  }
}

/** Keeps seeds for the lifetime of the process (tests, one-off scripts). */
export function memoryKeyStore(): KeyStore {
  const seeds = new Map<string, Uint8Array>();
  return { get: async (site) => seeds.get(site) ?? null, set: async (site, seed) => void seeds.set(site, seed) };
}

/** Browsers: seeds in IndexedDB (database `matrix-comments`, store `keys`, keyed by site). */
export function indexedDbKeyStore(name = "matrix-comments"): KeyStore {
  const request = <T>(r: IDBRequest<T>) =>
    new Promise<T>((resolve, reject) => ((r.onsuccess = () => resolve(r.result)), (r.onerror = () => reject(r.error))));
  const open = () => {
    const r = indexedDB.open(name, 1);
    r.onupgradeneeded = () => r.result.createObjectStore("keys");
    return request(r);
  };
  const keys = async (mode: IDBTransactionMode) => (await open()).transaction("keys", mode).objectStore("keys");
  return {
    get: async (site) => {
      const value = await request((await keys("readonly")).get(site));
      return value instanceof Uint8Array ? value : null;
    },
    set: async (site, seed) => void (await request((await keys("readwrite")).put(seed, site))),
  };
}

/** Node: seeds in a JSON file the caller names ({ "<site>": "<base64url seed>" }), readable by its owner only. */
export function fileKeyStore(path: string): KeyStore {
  const fs = () => import("node:fs/promises");
  const read = async (): Promise<Record<string, string>> => {
    try {
      return JSON.parse(await (await fs()).readFile(path, "utf8")) as Record<string, string>;
    } catch (err) {
      if ((err as { code?: string }).code === "ENOENT") return {};
      throw err;
    }
  };
  return {
    get: async (site) => {
      const seed = (await read())[site];
      return seed ? fromBase64Url(seed) : null;
    },
    set: async (site, seed) => {
      const all = { ...(await read()), [site]: toBase64Url(seed) };
      await (await fs()).writeFile(path, JSON.stringify(all, null, 2), { mode: 0o600 });
    },
  };
}
