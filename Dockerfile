# One image for the API and the worker (the command chooses). Build: docker build -t industrial-ops .
# Node 24: the current LTS (Node 20 reached end of life in April 2026).
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY api ./api
COPY cli ./cli
COPY activities ./activities
COPY workflows ./workflows
COPY workers ./workers
COPY db ./db
COPY domain ./domain
COPY infra ./infra
COPY orchestration ./orchestration
COPY scripts ./scripts
COPY bench ./bench
# tsc, then the workflow bundle the worker loads (dist/workflow-bundle.js): no webpack at start.
RUN npm run build && npm prune --omit=dev

FROM node:24-bookworm-slim
# Inside a container the API listens on every interface of the container's own network; what is
# published is the orchestrator's decision (docker-compose.yml, a Kubernetes Service).
ENV NODE_ENV=production APP_ENV=production API_HOST=0.0.0.0 API_PORT=3000 WORKER_HTTP_HOST=0.0.0.0 WORKER_HTTP_PORT=3001
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
USER node
# 3000: the API (with /livez, /readyz, /metrics); 3001: the worker's probes and /metrics.
EXPOSE 3000 3001
# Liveness of whichever process the command starts: the API by default; the worker sets
# HEALTHCHECK_URL to its own port (docker-compose.yml). As Kubernetes' liveness probe and
# `npm run up`'s supervisor: every 5 s, 2 s to answer, 3 misses (the stall watchdog ends a loop
# stuck for 10 s first); the start as the API's startup probe allows (the worker's: Compose).
HEALTHCHECK --interval=5s --timeout=2s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch(process.env.HEALTHCHECK_URL || 'http://127.0.0.1:' + (process.env.API_PORT || 3000) + '/livez').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "dist/api/server.js"]
