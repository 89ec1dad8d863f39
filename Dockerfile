# One image for every service; the compose file picks the app with the command.
FROM node:22-bookworm-slim AS build
WORKDIR /platform
COPY package.json package-lock.json ./
COPY apps apps
COPY libs libs
COPY tools tools
RUN npm ci --no-audit --no-fund
COPY tsconfig.base.json tsconfig.json .swcrc ./
RUN npm run build && npm prune --omit=dev

FROM node:22-bookworm-slim
ENV NODE_ENV=production HTTP_HOST=0.0.0.0
WORKDIR /platform
COPY --from=build /platform/package.json ./
COPY --from=build /platform/node_modules node_modules
COPY --from=build /platform/dist dist
USER node
# e.g. `node dist/apps/offers-api/src/main.js`
CMD ["node", "dist/apps/offers-api/src/main.js"]
