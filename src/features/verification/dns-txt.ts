// The DNS proof: a TXT record at _service.<host> whose value is service-verification=<token>.
// Only the name's records are read; nothing connects to the origin.
import type { HostResolver } from "../../security/resolver.ts";
import type { Check } from "./proof.ts";

export const txtName = (host: string) => `_service.${host}`;
export const txtValue = (token: string) => `service-verification=${token}`;

/** What to publish for this method, as the start of a verification hands it out. */
export function dnsTxtInstructions(host: string, token: string) {
  return {
    name: txtName(host),
    type: "TXT",
    value: txtValue(token),
    description: "Publish a TXT record with exactly this value at name; other TXT records there may stay.",
  };
}

export async function checkDnsTxt(host: string, token: string, resolver: HostResolver): Promise<Check> {
  const name = txtName(host);
  let records: string[];
  try {
    records = await resolver.txt(name);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOTFOUND" || code === "ENODATA") return { ok: false, reason: `no TXT record at ${name}` };
    return { ok: false, reason: `the TXT query for ${name} failed (${code ?? (err as Error).message})` };
  }
  if (records.includes(txtValue(token))) return { ok: true };
  if (records.some((r) => r.startsWith(txtValue(""))))
    return { ok: false, reason: `the TXT record at ${name} holds a different token` };
  return { ok: false, reason: `none of the ${records.length} TXT records at ${name} is ${txtValue("<token>")}` };
}
