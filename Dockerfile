# One image for every service. SERVICE (build arg, overridable as an env var
# at run time) picks services/<SERVICE>. The build stage compiles every
# workspace with `npm run build` (tsc -b: src/ → dist/) and the web apps
# (`npm run build:web` → web/dist, served by the gateway); the final image
# holds compiled JavaScript, production dependencies and each workspace's
# run-time files (package.json, migrations), and no TypeScript loader.
# VERSION (a git sha or release) becomes service.version on every span and metric.
#
#   docker build --build-arg VERSION=$(git rev-parse --short HEAD) -t esim-platform .
#   docker run -e SERVICE=catalog esim-platform

ARG NODE_IMAGE=node:24-bookworm-slim

# Only the manifests, so the dependency layers below are rebuilt when a
# package.json or the lockfile changes, not on every source edit.
FROM ${NODE_IMAGE} AS manifests
WORKDIR /src
COPY . .
RUN mkdir /manifests \
 && cp package.json package-lock.json /manifests/ \
 && find packages services -mindepth 2 -maxdepth 2 -name package.json -exec cp --parents {} /manifests/ \;

# Every dependency, dev tools included (typescript, tsx), to compile.
FROM ${NODE_IMAGE} AS build
WORKDIR /src
COPY --from=manifests /manifests/ ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY scripts/build/ scripts/build/
COPY packages/ packages/
COPY services/ services/
COPY web/ web/
RUN npm run build \
 && npm run build:web \
 && mkdir /out \
 && tar -c --exclude=node_modules --exclude='packages/*/src' --exclude='services/*/src' \
      --exclude='packages/*/test' --exclude='services/*/test' --exclude='*.tsbuildinfo' --exclude='*.d.ts' \
      packages services web/dist | tar -x -C /out

# Production dependencies only: no typescript, vitest or tsx.
FROM ${NODE_IMAGE} AS install
WORKDIR /app
COPY --from=manifests /manifests/ ./
RUN npm ci --omit=dev --no-audit --no-fund

FROM ${NODE_IMAGE}
ARG SERVICE=gateway
ARG VERSION=dev
# The V8 heap: scripts/deploy/nodeOptions.ts says why (a test keeps them equal).
ENV NODE_ENV=production \
    NODE_OPTIONS="--max-old-space-size=256 --max-semi-space-size=16" \
    SERVICE=${SERVICE} \
    SERVICE_VERSION=${VERSION}
WORKDIR /app
RUN groupadd --system --gid 10001 esim \
 && useradd --system --uid 10001 --gid esim --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin esim
# The code stays owned by root and read-only to the service; only var/
# (.eml files when SMTP_URL is unset; var/pki, the development gRPC
# certificates Compose shares in a volume) is writable. Kubernetes mounts
# emptyDirs on /app/var and /tmp under a read-only root.
COPY --from=install /app/ /app/
COPY --from=build /out/ /app/
COPY deploy/healthcheck.sh /usr/local/bin/esim-healthcheck
RUN chmod 755 /usr/local/bin/esim-healthcheck \
 && mkdir -p /app/var/pki /app/var/secrets && chown esim:esim /app/var /app/var/pki /app/var/secrets && chmod 700 /app/var/secrets
USER 10001:10001
# Node is PID 1 and the services handle SIGTERM themselves (drain, then exit).
# The telemetry preload comes first so grpc-js, pg and ioredis are patched
# before the service imports them (packages/telemetry/src/register.ts).
CMD ["sh", "-c", "test -f \"services/$SERVICE/dist/main.js\" || { echo \"unknown SERVICE '$SERVICE'\" >&2; exit 64; }; cd \"services/$SERVICE\" && exec node --import @esim/telemetry/register dist/main.js"]
