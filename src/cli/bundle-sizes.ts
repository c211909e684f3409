// npm run bench:widget: the size of what an embedding page downloads (the widget bundle,
// minified and gzipped as the service sends it) against the 40 KB budget, and the desk's
// (/admin) against its 120 KB; exits 1 over either.
import { deskAssets, DESK_BUDGET_GZIP_BYTES } from "../desk/serve.ts";
import { widgetAssets, WIDGET_BUDGET_GZIP_BYTES } from "../widget/serve.ts";

const assets = { ...(await widgetAssets()), ...(await deskAssets()) };
for (const [path, asset] of Object.entries(assets)) {
  console.log(
    `${path}: ${(asset.body.length / 1024).toFixed(1)} KB minified, ${(asset.gzip.length / 1024).toFixed(1)} KB gzipped (version ${asset.version})`,
  );
}
const widget = assets["/widget.js"].gzip.length;
const desk = assets["/admin/desk.js"].gzip.length;
console.log(`widget budget: ${(widget / 1024).toFixed(1)} KB of ${WIDGET_BUDGET_GZIP_BYTES / 1024} KB gzipped`);
console.log(`desk budget: ${(desk / 1024).toFixed(1)} KB of ${DESK_BUDGET_GZIP_BYTES / 1024} KB gzipped`);
if (widget > WIDGET_BUDGET_GZIP_BYTES || desk > DESK_BUDGET_GZIP_BYTES) process.exit(1);
