# One image for every service. SERVICE (build arg, overridable as an env var
# at run time) picks services/<SERVICE>; TypeScript runs through tsx, as in
# development, so there is no build step.
#
#   docker build -t esim-platform .
#   docker run -e SERVICE=catalog esim-platform

ARG NODE_IMAGE=node:24-bookworm-slim

# Only the manifests, so the dependency layer below is rebuilt when a
# package.json or the lockfile changes, not on every source edit.
FROM ${NODE_IMAGE} AS manifests
WORKDIR /src
COPY . .
RUN mkdir /manifests \
 && cp package.json package-lock.json /manifests/ \
 && find packages services -mindepth 2 -maxdepth 2 -name package.json -exec cp --parents {} /manifests/ \;

FROM ${NODE_IMAGE} AS install
WORKDIR /app
COPY --from=manifests /manifests/ ./
# tsx is a root runtime dependency, so dev tools (vitest, buf, typescript) stay out.
RUN npm ci --omit=dev --no-audit --no-fund
COPY tsconfig.json ./
COPY packages/ packages/
COPY services/ services/

FROM ${NODE_IMAGE}
ARG SERVICE=gateway
ENV NODE_ENV=production \
    SERVICE=${SERVICE}
WORKDIR /app
RUN groupadd --system --gid 10001 esim \
 && useradd --system --uid 10001 --gid esim --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin esim
# The code stays owned by root and read-only to the service; only var/
# (development secrets, .eml files) is writable. Kubernetes mounts emptyDirs
# on /app/var and /tmp (tsx's transform cache) under a read-only root.
COPY --from=install /app/ /app/
RUN mkdir -p /app/var && chown esim:esim /app/var
USER 10001:10001
# Node is PID 1 and the services handle SIGTERM themselves (drain, then exit).
CMD ["sh", "-c", "test -d \"services/$SERVICE\" || { echo \"unknown SERVICE '$SERVICE'\" >&2; exit 64; }; cd \"services/$SERVICE\" && exec node --import tsx --import @esim/telemetry/register src/main.ts"]
