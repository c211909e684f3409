// A request line's bytes, made in place: the JSON line pino writes for the same fields (same
// order, escaping, number and time format: test/unit/logger.test.ts compares them), encoded
// straight into the log's buffer. Made as text, a line was a dozen strings joined, the batch's
// text flattened, then encoded (1.1-1.2 µs a line through the destination in a loop; 0.8-1.0 so).
// Here the parts that repeat (the second's time, a method, a route with the keys around it, a
// status) are kept as bytes, and the rest copied a character at a time.

/**
 * A request id as the service makes one (a UUID) or keeps a caller's: characters JSON writes as
 * they are, so a line takes the id without escaping it.
 */
export const PLAIN_REQUEST_ID = /^[\w.:-]{1,64}$/;

/** What a request line holds besides the logger's own fields (level, time, service, msg). */
export interface RequestLine {
  /** Matches PLAIN_REQUEST_ID: written as it is. */
  requestId: string;
  method: string;
  /** The route table's id, or the kind of a request it did not answer (http-server.ts). */
  route: string;
  /**
   * The request target as received: the line holds its path, without the query (signed media
   * URLs carry their signatures there). Taken whole so that a request makes no string for its line.
   */
  target: string;
  /** The status sent (0: none was). */
  status: number;
  latencyMs: number;
}

/** Parts kept per kind (methods, routes, statuses) at most: the sets are far smaller; one past it is made each time. */
const KEPT_PARTS = 1024;
/** A line's bytes besides its method, route and path, at most: the fixed text, a 64-character id, two numbers. */
const LINE_BYTES = 512;

/** The most bytes `line` can take: JSON writes a UTF-16 code unit as at most 6 bytes (`\u001f`). */
export function requestLineBound(line: RequestLine): number {
  return LINE_BYTES + 6 * (line.method.length + line.route.length + line.target.length);
}

/**
 * Makes request lines for one logger: `head` is its line's start (`{"level":30`), `bindings` its
 * fields after the time (`,"service":"…"`).
 */
export class RequestLineEncoder {
  private second = Number.NaN;
  /** `{"level":30,"time":"2026-12-07T03:25:25.` for `second`. */
  private secondBytes = Buffer.alloc(0);
  /** `Z"` (the time's end), the bindings, the request id's key. */
  private readonly afterTime: Buffer;
  private readonly methods = new Map<string, Buffer>();
  private readonly routes = new Map<string, Buffer>();
  private readonly statuses = new Map<number, Buffer>();

  constructor(
    private readonly head: string,
    bindings: string,
  ) {
    this.afterTime = Buffer.from(`Z"${bindings},"requestId":"`);
  }

  /** Writes the line of `line`, ended at `time` (ms since the epoch), into `out` from `at`; returns where it ends. */
  encode(line: RequestLine, time: number, out: Buffer, at: number): number {
    const second = Math.floor(time / 1000);
    if (second !== this.second) {
      this.second = second;
      this.secondBytes = Buffer.from(`${this.head},"time":"${isoSecond(second)}`);
    }
    let pos = put(out, at, this.secondBytes);
    const ms = time - second * 1000;
    out[pos++] = 48 + Math.floor(ms / 100);
    out[pos++] = 48 + (Math.floor(ms / 10) % 10);
    out[pos++] = 48 + (ms % 10);
    pos = put(out, pos, this.afterTime);
    pos = putAscii(out, pos, line.requestId);
    pos = put(out, pos, this.method(line.method));
    pos = put(out, pos, this.route(line.route));
    pos = putPath(out, pos, line.target);
    pos = put(out, pos, this.status(line.status));
    pos = putNumber(out, pos, line.latencyMs);
    return put(out, pos, LINE_END);
  }

  /** `","method":"GET"`: the request id's closing quote, the method. */
  private method(method: string): Buffer {
    return this.methods.get(method) ?? kept(this.methods, method, `","method":${JSON.stringify(method)}`);
  }

  /** `,"route":"listComments","path":`. */
  private route(route: string): Buffer {
    return this.routes.get(route) ?? kept(this.routes, route, `,"route":${JSON.stringify(route)},"path":`);
  }

  /** `,"status":200,"latencyMs":`. */
  private status(status: number): Buffer {
    return this.statuses.get(status) ?? kept(this.statuses, status, `,"status":${jsonNumber(status)},"latencyMs":`);
  }
}

const LINE_END = Buffer.from(`,"msg":"request"}\n`);

function kept<K>(parts: Map<K, Buffer>, key: K, text: string): Buffer {
  const bytes = Buffer.from(text);
  if (parts.size < KEPT_PARTS) parts.set(key, bytes);
  return bytes;
}

/** `YYYY-MM-DDTHH:MM:SS.` of a second since the epoch: the part of an ISO 8601 time a second shares. */
export function isoSecond(second: number): string {
  return new Date(second * 1000).toISOString().slice(0, 20);
}

const QUERY_START = 0x3f;

/** A request target's path: the part before its query. */
export function requestPath(target: string): string {
  const query = target.indexOf("?");
  return query === -1 ? target : target.slice(0, query);
}

function put(out: Buffer, at: number, bytes: Buffer): number {
  out.set(bytes, at);
  return at + bytes.length;
}

/** `text`, known to be ASCII, a byte a character. */
function putAscii(out: Buffer, at: number, text: string): number {
  for (let i = 0; i < text.length; i++) out[at + i] = text.charCodeAt(i);
  return at + text.length;
}

/**
 * The path of `target` (up to its first `?`) as JSON.stringify writes it: printable ASCII but `"`
 * and `\` as it is, else by JSON.stringify.
 */
function putPath(out: Buffer, at: number, target: string): number {
  out[at] = 0x22;
  let pos = at + 1;
  for (let i = 0; i < target.length; i++) {
    const c = target.charCodeAt(i);
    if (c === QUERY_START) break;
    if (c < 0x20 || c > 0x7e || c === 0x22 || c === 0x5c)
      return at + out.write(JSON.stringify(requestPath(target)), at, "utf8");
    out[pos++] = c;
  }
  out[pos] = 0x22;
  return pos + 1;
}

/**
 * A number as JSON.stringify writes it (null when not finite). A whole number of thousandths (a
 * latency in ms to the µs) is written from integers, digit by digit: the shortest decimal of such
 * a double is its exact decimal, and formatting a fraction's double (or joining the digits' strings)
 * was a visible part of a line's cost.
 */
function putNumber(out: Buffer, at: number, value: number): number {
  const thousandths = Math.round(value * 1000);
  if (thousandths / 1000 !== value || thousandths < 0 || thousandths > 0x7fffffff)
    return putAscii(out, at, jsonNumber(value));
  const whole = (thousandths / 1000) | 0;
  let pos = putDigits(out, at, whole);
  let fraction = thousandths - whole * 1000;
  if (fraction === 0) return pos;
  out[pos++] = 0x2e;
  // Three digits with the fraction's trailing zeros left off.
  for (let unit = 100; fraction > 0; unit /= 10) {
    const digit = (fraction / unit) | 0;
    out[pos++] = 48 + digit;
    fraction -= digit * unit;
  }
  return pos;
}

/** A whole number from 0 to 2^31 − 1 in decimal digits. */
function putDigits(out: Buffer, at: number, value: number): number {
  let length = 1;
  for (let rest = value; rest >= 10; rest = (rest / 10) | 0) length++;
  for (let pos = at + length - 1, rest = value; pos >= at; pos--, rest = (rest / 10) | 0) out[pos] = 48 + (rest % 10);
  return at + length;
}

/** A number as JSON.stringify writes it (null when not finite). */
function jsonNumber(value: number): string {
  return Number.isFinite(value) ? String(value) : "null";
}
