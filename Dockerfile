# teammem server image: `docker build -t teammem-server .`
#   docker run -p 8080:8080 -v teammem-data:/data teammem-server                 # embedded PGlite in /data
#   docker run -p 8080:8080 -e DATABASE_URL=postgres://u:p@db:5432/teammem teammem-server
#   docker compose up -d                                                        # with PostgreSQL: compose.yaml
# The first start prints the admin token and the client command (docker logs <container>).

# ---- build: full install, compile every workspace ------------------------------------------------
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json tsconfig.json tsconfig.base.json ./
COPY packages/protocol/package.json packages/protocol/
COPY packages/scanner/package.json packages/scanner/
COPY apps/server/package.json apps/server/
COPY apps/client/package.json apps/client/
COPY test/package.json test/
RUN npm ci --no-audit --no-fund
COPY packages packages
COPY apps apps
COPY migrations migrations
RUN npx tsc -b apps/server && chmod +x apps/server/dist/cli.js

# ---- runtime: production dependencies, compiled output and migrations, non-root ------------------
FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production \
    TEAMMEM_DATA_DIR=/data \
    HOST=0.0.0.0 \
    PORT=8080
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages/protocol/package.json packages/protocol/
COPY packages/scanner/package.json packages/scanner/
COPY apps/server/package.json apps/server/
COPY apps/client/package.json apps/client/
COPY test/package.json test/
COPY apps/server/bin apps/server/bin
# Only the server workspace and what it needs (protocol, scanner): no client or test dependencies.
RUN npm ci --omit=dev -w @teammem/server --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/packages/protocol/dist packages/protocol/dist
COPY --from=build /app/packages/scanner/dist packages/scanner/dist
COPY --from=build /app/apps/server/dist apps/server/dist
COPY --from=build /app/apps/server/console/index.html /app/apps/server/console/console.css /app/apps/server/console/favicon.svg apps/server/console/
COPY --from=build /app/apps/server/console/dist apps/server/console/dist
COPY --from=build /app/migrations migrations
RUN ln -s /app/apps/server/dist/cli.js /usr/local/bin/teammem-server \
 && mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 8080
# Healthy = ready: the database answers, migrations are applied, the LISTEN connection is up (/readyz).
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
ENTRYPOINT ["teammem-server"]
CMD ["start", "--host", "0.0.0.0"]
