/**
 * The V8 heap every service runs with in the image (the Dockerfile's
 * `NODE_OPTIONS`; a test holds the two together, and the benchmarks run the
 * services with it). Left to itself Node sizes the heap from the container's
 * memory limit, or from the host's memory where there is none (Compose): on a
 * 512 MiB limit V8 picks a 256 MiB old generation and 1 MiB semi-spaces, which
 * halve the gateway's throughput (a scavenge every few hundred requests); on
 * a large host it picks a 4 GiB old generation that lets garbage pile up. So
 * both are set: the old generation to what the pod's limit allows, the young
 * generation to 16 MiB. V8 grows semi-spaces only under load and shrinks them
 * again when the process idles.
 */
export const productionNodeOptions = ['--max-old-space-size=256', '--max-semi-space-size=16'] as const;
