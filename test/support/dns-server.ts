// A tiny authoritative DNS server over UDP on loopback, for tests that need names to resolve
// to chosen addresses (security.dns_resolver points the service at it). It answers A, AAAA and
// TXT questions from a callback and logs every question it was asked.
import { createSocket, type Socket } from "node:dgram";
import { isIPv4, isIPv6 } from "node:net";
import type { AddressInfo } from "node:net";

export type RecordType = "A" | "AAAA" | "TXT";

/** Addresses for A/AAAA, strings for TXT; null means the name does not exist (NXDOMAIN). */
export type Answer = string[] | null;

const TYPES: Record<number, RecordType> = { 1: "A", 28: "AAAA", 16: "TXT" };
const CODES: Record<RecordType, number> = { A: 1, AAAA: 28, TXT: 16 };

export class TestDns {
  readonly queries: { name: string; type: RecordType | number }[] = [];
  private constructor(
    private readonly socket: Socket,
    private answer: (name: string, type: RecordType) => Answer,
  ) {
    socket.on("message", (message, peer) => {
      const response = this.respond(message);
      if (response) socket.send(response, peer.port, peer.address);
    });
  }

  static async start(answer: (name: string, type: RecordType) => Answer = () => null): Promise<TestDns> {
    const socket = createSocket("udp4");
    await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", resolve));
    return new TestDns(socket, answer);
  }

  /** "127.0.0.1:<port>", for security.dns_resolver. */
  get server(): string {
    const { address, port } = this.socket.address() as AddressInfo;
    return `${address}:${port}`;
  }

  answerWith(answer: (name: string, type: RecordType) => Answer): void {
    this.answer = answer;
  }

  /** How often `name` was asked for records of `type`. */
  asked(name: string, type: RecordType): number {
    return this.queries.filter((q) => q.name === name && q.type === type).length;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.socket.close(() => resolve()));
  }

  private respond(message: Buffer): Buffer | null {
    if (message.length < 12) return null;
    // The question: length-prefixed labels up to a zero byte, then type and class.
    let offset = 12;
    const labels: string[] = [];
    while (offset < message.length && message[offset] !== 0) {
      const length = message[offset]!;
      labels.push(message.subarray(offset + 1, offset + 1 + length).toString("ascii"));
      offset += 1 + length;
    }
    offset += 1;
    const question = message.subarray(12, offset + 4);
    const typeCode = message.readUInt16BE(offset);
    const name = labels.join(".").toLowerCase();
    const type = TYPES[typeCode];
    this.queries.push({ name, type: type ?? typeCode });
    const answer = type ? this.answer(name, type) : [];
    const records = (answer ?? []).map((value) => record(type!, value));
    const header = Buffer.alloc(12);
    header.writeUInt16BE(message.readUInt16BE(0), 0);
    // QR, opcode 0, AA, RD copied, RA; rcode 3 (NXDOMAIN) when the name does not exist.
    header.writeUInt16BE(0x8400 | (message.readUInt16BE(2) & 0x0100) | 0x0080 | (answer === null ? 3 : 0), 2);
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(records.length, 6);
    return Buffer.concat([header, question, ...records]);
  }
}

function record(type: RecordType, value: string): Buffer {
  let data: Buffer;
  if (type === "A") {
    if (!isIPv4(value)) throw new Error(`not an IPv4 address: ${value}`);
    data = Buffer.from(value.split(".").map(Number));
  } else if (type === "AAAA") {
    if (!isIPv6(value)) throw new Error(`not an IPv6 address: ${value}`);
    data = ipv6Bytes(value);
  } else {
    const text = Buffer.from(value, "utf8");
    // Longer values are split into 255-byte strings, as DNS requires.
    const parts: Buffer[] = [];
    for (let i = 0; i < text.length || i === 0; i += 255) {
      const chunk = text.subarray(i, i + 255);
      parts.push(Buffer.from([chunk.length]), chunk);
    }
    data = Buffer.concat(parts);
  }
  const fixed = Buffer.alloc(12);
  fixed.writeUInt16BE(0xc00c, 0); // the name: a pointer to the question's
  fixed.writeUInt16BE(CODES[type], 2);
  fixed.writeUInt16BE(1, 4); // class IN
  fixed.writeUInt32BE(0, 6); // TTL 0: nothing is cached between answers
  fixed.writeUInt16BE(data.length, 10);
  return Buffer.concat([fixed, data]);
}

function ipv6Bytes(address: string): Buffer {
  // The URL parser writes an embedded IPv4 tail as two hex words.
  const canonical = new URL(`http://[${address}]`).hostname.slice(1, -1);
  const [head, tail] = canonical.includes("::") ? canonical.split("::") : [canonical, undefined];
  const words = (part: string | undefined) => (part ? part.split(":").map((w) => parseInt(w, 16)) : []);
  const left = words(head);
  const right = words(tail);
  const all =
    tail === undefined ? left : [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
  const bytes = Buffer.alloc(16);
  all.forEach((w, i) => bytes.writeUInt16BE(w, i * 2));
  return bytes;
}
