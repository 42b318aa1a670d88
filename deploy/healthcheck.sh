#!/bin/bash
# Container health check: healthy when GET http://127.0.0.1:<port><path> answers 200.
# Installed in the image as /usr/local/bin/esim-healthcheck for docker-compose.yml.
# Plain bash (/dev/tcp), so a check every few seconds does not start a Node
# process; Kubernetes probes the same endpoints itself and does not use it.
#   esim-healthcheck 9092 /readyz
set -u
port=${1:?usage: esim-healthcheck <port> [path]}
path=${2:-/readyz}
exec 3<>"/dev/tcp/127.0.0.1/$port" || exit 1
printf 'GET %s HTTP/1.0\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n' "$path" >&3
IFS= read -r -t 3 status <&3 || { echo "no answer from 127.0.0.1:$port$path" >&2; exit 1; }
status=${status%$'\r'}
case $status in
  "HTTP/1."?" 200 "*) exit 0 ;;
  *) echo "127.0.0.1:$port$path answered: $status" >&2; exit 1 ;;
esac
