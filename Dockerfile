# One image for every Parley node (see docker-compose.yml and README "Running several nodes").
FROM node:20-bookworm-slim AS build
WORKDIR /app
# better-sqlite3 compiles from source where its prebuilt binary cannot be fetched.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
ENV NEXT_TELEMETRY_DISABLED=1 CHECKPOINT_DISABLE=1 PRISMA_HIDE_UPDATE_MESSAGE=1
COPY package.json package-lock.json ./
COPY scripts ./scripts
# The parley command is a local package (file:bin) that npm ci links into node_modules/.bin.
COPY bin ./bin
COPY prisma ./prisma
COPY prisma.config.ts ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build

FROM node:20-bookworm-slim
WORKDIR /app
# Every command the agent's tools run is sandboxed by bubblewrap (docs/permissions.md#the-sandbox);
# a container must allow user namespaces for it, else commands run unsandboxed and are asked for every time.
RUN apt-get update && apt-get install -y --no-install-recommends bubblewrap && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production NEXT_TELEMETRY_DISABLED=1 CHECKPOINT_DISABLE=1 PRISMA_HIDE_UPDATE_MESSAGE=1 HOST=0.0.0.0 PORT=3000
# The server migrates its database at start; node_modules keeps the Prisma CLI for `npm run prisma -- migrate status`.
COPY --from=build /app /app
# Where a node announces itself to the CLI (data/<hash>.server.json).
RUN mkdir -p /app/data && chown node:node /app/data
USER node
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:3000/api/ready').then(r => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "dist/server.js"]
