# syntax=docker/dockerfile:1
# One pattern for every service's image. The build context is the service's image input,
# dist/images/<app>, which `npx nx run <app>:prune` writes: the app's compiled code and the compiled
# libs it imports, under dist/ as in the workspace (with the portal's built web application,
# dist/apps/portal/web, which it serves), and a package.json and package-lock.json pruned to the npm
# packages that code imports. `npx nx run <app>:container` builds it:
#   docker build -f Dockerfile --build-arg APP=<app> -t availability/<app>:latest dist/images/<app>
ARG NODE_IMAGE=node:24-bookworm-slim

FROM ${NODE_IMAGE} AS dependencies
WORKDIR /platform
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund

FROM ${NODE_IMAGE}
ARG APP
# What the container runs unless told otherwise; the dev tools image names its own.
ARG MAIN=dist/apps/${APP}/src/main.js
ENV NODE_ENV=production HTTP_HOST=0.0.0.0 APP=${APP} MAIN=${MAIN}
WORKDIR /platform
COPY --from=dependencies /platform/node_modules node_modules
COPY package.json ./
COPY dist dist
# Fails the build when the context is not APP's image input.
RUN test -n "$APP" && test -f "$MAIN"
# Owned by root and run as node: the service cannot change its own code.
USER node
CMD ["sh", "-c", "exec node \"$MAIN\""]
