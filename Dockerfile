# One image for the API and the worker (the command chooses). Build: docker build -t industrial-ops .
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY api ./api
COPY activities ./activities
COPY workflows ./workflows
COPY workers ./workers
COPY db ./db
COPY domain ./domain
COPY infra ./infra
COPY orchestration ./orchestration
COPY scripts ./scripts
COPY bench ./bench
RUN npx tsc -p tsconfig.build.json && npm prune --omit=dev

FROM node:20-bookworm-slim
ENV NODE_ENV=production APP_ENV=production
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
USER node
EXPOSE 3000
CMD ["node", "dist/api/server.js"]
