# The comment service's image: `docker build .` (docs/operations.md#containers).
# NODE_IMAGE is the base of both stages; the default is the official Node.js 24 LTS image. A
# base of your own must be Debian-like with node and npm on PATH and a user `node` (uid 1000),
# as the official image has.
ARG NODE_IMAGE=node:24-bookworm-slim

# Dependencies without development packages. No install script runs: better-sqlite3 13 and
# sodium-native ship prebuilt Node-API binaries, and the Prisma clients are generated below by
# the project's own postinstall step, so nothing is compiled or downloaded from outside npm.
FROM ${NODE_IMAGE} AS build
WORKDIR /app
ENV npm_config_update_notifier=false
COPY package.json package-lock.json ./
COPY stubs ./stubs
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund
COPY prisma ./prisma
COPY src ./src
# Generates src/db/generated, then drops what Node.js 24 never loads: better-sqlite3 12 (the
# Node.js 20 build, stubs/better-sqlite3) and the native binaries of other platforms.
RUN npm run postinstall \
 && rm -rf node_modules/better-sqlite3-node20 \
 && find node_modules/better-sqlite3-napi/prebuilds node_modules/sodium-native/prebuilds \
      -mindepth 1 -maxdepth 1 ! -name "linux-$(node -p process.arch)*" -exec rm -rf {} + \
 && rm -rf /root/.npm /tmp/*

# The runtime: the official Node.js image without compilers; the service's files are root's and
# read-only to the non-root user it runs as; everything it writes is under /data.
FROM ${NODE_IMAGE}
WORKDIR /app
ENV NODE_ENV=production \
    COMMENT_SERVICE_CONFIG=/etc/comment-service/comment-service.toml
COPY --from=build /app /app
COPY deploy/comment-service.toml /etc/comment-service/comment-service.toml
RUN mkdir -p /data && chown node:node /data
VOLUME /data
USER node
EXPOSE 8080
# Ready means the database and the homeserver answer (docs/operations.md#health-probes-for-orchestrators).
# A first start runs the migrations before it listens: the start period covers them.
HEALTHCHECK --interval=10s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:8080/health/ready').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# node is PID 1 and handles SIGTERM itself (the graceful stop of docs/operations.md#stopping-sigterm).
STOPSIGNAL SIGTERM
CMD ["node", "--max-semi-space-size=64", "--import", "tsx", "src/cli/start.ts"]
