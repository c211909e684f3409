// better-sqlite3 for every Node.js major the service supports. 12.x and earlier build on
// node::ObjectWrap, whose objects abort the process on Node.js 24.19+ when the garbage collector
// frees them outside a context (WiseLibs/better-sqlite3#1515); 13.x uses Node-API and fixes that,
// but does not run on Node.js 20. The Prisma adapter imports "better-sqlite3", so the choice is
// made here, once, by the running major.
const major = Number(process.versions.node.split(".")[0]);
module.exports = require(major >= 22 ? "better-sqlite3-napi" : "better-sqlite3-node20");
