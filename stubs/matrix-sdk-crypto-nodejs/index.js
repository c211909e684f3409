"use strict";
// This service never encrypts or decrypts Matrix events (comment rooms are unencrypted and the
// bot ignores encrypted DMs), so the native crypto binding is replaced by this stand-in.
// Loading it is harmless; any attempt to use it fails loudly instead of silently.
const fail = (name) => () => {
  throw new Error(`Matrix end-to-end encryption is not supported by this service (tried to use ${name})`);
};
module.exports = new Proxy(
  {},
  {
    get(_target, name) {
      if (name === "__esModule") return false;
      if (typeof name === "symbol") return undefined;
      return fail(String(name));
    },
  },
);
