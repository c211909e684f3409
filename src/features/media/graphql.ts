// A visitor's upload as the uploadMedia mutation answers it.
import { MediaUploadType } from "./operations/upload-media.ts";

MediaUploadType.implement({
  description: "A visitor's upload to the homeserver's media repository.",
  fields: (t) => ({
    url: t.exposeString("url", { description: "The mxc:// URL; post it in a comment's media." }),
    filename: t.exposeString("filename", { nullable: true }),
    mimetype: t.exposeString("mimetype", { description: "The canonical MIME type (checked against the bytes)." }),
    size: t.exposeInt("size", { description: "Bytes." }),
    voice: t.exposeBoolean("voice"),
    replayed: t.exposeBoolean("replayed", {
      description: "True when this answers a retry with the same Idempotency-Key (nothing uploaded again).",
    }),
  }),
});
