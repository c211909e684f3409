// The parsed, validated JSON bodies of cacheable reads, by their exact bytes. A cached read costs
// a lookup, but decoding and checking its body costs more than the lookup once the body is large:
// an index page's 200-slug count read spent ~40 µs parsing and checking each time the same 3 KB.
// The same bytes always parse and check alike, so a body seen and accepted before is reused as
// it is (callers never modify a body). Bounded: the first-stored entry makes room for the next.
import { setBounded } from "../core/bounded-map.ts";
import { MAX_REMEMBERED_READ_BODIES, MAX_REMEMBERED_READ_BODY_BYTES } from "../config/limits.ts";

export class ReadBodies {
  private readonly bodies = new Map<string, Record<string, unknown>>();

  /** The key of `raw` for `operationId`, or null when such a body is not remembered (too large). */
  key(operationId: string, raw: Buffer): string | null {
    // latin1 maps each byte to one character: a cheap exact key, not a decoding.
    return raw.length <= MAX_REMEMBERED_READ_BODY_BYTES ? `${operationId}\u0000${raw.toString("latin1")}` : null;
  }

  get(key: string): Record<string, unknown> | undefined {
    return this.bodies.get(key);
  }

  remember(key: string, body: Record<string, unknown>): void {
    setBounded(this.bodies, key, body, MAX_REMEMBERED_READ_BODIES);
  }
}
