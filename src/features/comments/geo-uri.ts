import { MAX_GEO_URI_LENGTH } from "../../config/limits.ts";
// geo URIs (RFC 5870): `geo:<lat>,<lon>[,<alt>][;crs=wgs84][;u=<uncertainty>](;<param>[=<value>])*`.
// Only WGS-84, the default and the only CRS whose coordinate ranges a client can rely on.

const NUM = String.raw`-?\d+(?:\.\d+)?`;
const PARAM = String.raw`;[A-Za-z0-9-]+(?:=(?:[A-Za-z0-9\-_.!~*'()\[\]:&+$]|%[0-9A-Fa-f]{2})+)?`;
const GEO = new RegExp(`^geo:(${NUM}),(${NUM})(?:,(${NUM}))?((?:${PARAM})*)$`, "i");

/** Why `uri` is not an acceptable geo URI, or null when it is. */
export function geoUriProblem(uri: string): string | null {
  if (uri.length > MAX_GEO_URI_LENGTH) return `must be at most ${MAX_GEO_URI_LENGTH} characters`;
  const match = GEO.exec(uri);
  if (!match) return "must be a geo URI (RFC 5870), e.g. geo:48.2010,16.3695";
  const [, lat, lon, , paramText] = match;
  if (Math.abs(Number(lat)) > 90) return "latitude must be between -90 and 90";
  if (Math.abs(Number(lon)) > 180) return "longitude must be between -180 and 180";
  const params = paramText!
    .split(";")
    .slice(1)
    .map((p) => {
      const eq = p.indexOf("=");
      return eq < 0
        ? { name: p.toLowerCase(), value: "" }
        : { name: p.slice(0, eq).toLowerCase(), value: p.slice(eq + 1) };
    });
  // RFC 5870 §3.3: crs comes first, then u; neither repeats.
  const crsAt = params.findIndex((p) => p.name === "crs");
  const uAt = params.findIndex((p) => p.name === "u");
  if (params.filter((p) => p.name === "crs" || p.name === "u").length > (crsAt >= 0 ? 1 : 0) + (uAt >= 0 ? 1 : 0))
    return "crs and u may appear once each";
  if (crsAt > 0 || (uAt > 0 && !(crsAt === 0 && uAt === 1))) return "crs must come first and u right after it";
  if (crsAt === 0 && params[0]!.value.toLowerCase() !== "wgs84") return "only crs=wgs84 is supported";
  if (uAt >= 0 && !/^\d+(?:\.\d+)?$/.test(params[uAt]!.value)) return "u must be a non-negative number of meters";
  return null;
}
