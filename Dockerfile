# syntax=docker/dockerfile:1
#
# One image for every service. The service is picked at run time by APP
# (gateway | orders | methods | payouts | p2p | callbacks-ingest | provider-sandbox), or by overriding the command:
#
#   docker build -t payments:local .
#   docker run -e APP=gateway -e DATABASE_URL=... -e KAFKA_BROKERS=... -e OPS_TOKEN=... payments:local
#   docker run payments:local node -r tsconfig-paths/register dist/apps/orders/src/main.js
#
# See docs/deployment.md for the environment each service needs.

ARG NODE_IMAGE=node:20-bookworm-slim

# --- build: all dependencies, compile apps and libs to dist/ ---------------------------------
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund --loglevel=error
COPY tsconfig.base.json tsconfig.build.json ./
COPY apps ./apps
COPY libs ./libs
RUN npx tsc -p tsconfig.build.json

# --- prod-deps: runtime dependencies only ------------------------------------------------------
FROM ${NODE_IMAGE} AS prod-deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund --loglevel=error && npm cache clean --force

# --- runtime -----------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    HTTP_HOST=0.0.0.0
WORKDIR /app
COPY --from=prod-deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json tsconfig.dist.json ./
# tsconfig-paths resolves the @payments/* imports to dist/libs, as tsconfig.dist.json says.
ENV TS_NODE_PROJECT=/app/tsconfig.dist.json
# The old generation's cap, the same as `npm start` and the bench use (tools/stack/common.mjs):
# V8 otherwise sizes the heap from the host's memory and lets garbage pile up to ~4x the live heap
# (docs/decisions.md 230). A Deployment that needs more sets NODE_OPTIONS itself.
ENV NODE_OPTIONS=--max-old-space-size=256
# uid/gid 1000 is the image's "node" user; numeric so Kubernetes' runAsNonRoot can verify it.
USER 1000:1000
# gateway, callbacks-ingest, provider-sandbox, orders, methods, payouts and p2p (health only)
EXPOSE 3000 3001 3002 3010 3020 3040 3050
# exec: node becomes PID 1 and receives SIGTERM directly (the services shut down gracefully on it).
CMD ["/bin/sh", "-c", "exec node -r tsconfig-paths/register \"dist/apps/${APP:?set APP to gateway, backoffice, orders, methods, payouts, p2p, callbacks-ingest, merchant-callbacks, provider-sandbox or checkout}/src/main.js\""]
