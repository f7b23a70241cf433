#!/usr/bin/env bash
# scripts/minio.sh install|start|stop|reset|status — a real MinIO for
# ilmctl's s3:// integration tests, on loopback only. MinIO is a test
# fixture run as a separate process: nothing of it is linked into ilmctl or
# named in its go.mod (MinIO is AGPL-licensed).
#
# install  builds the pinned github.com/minio/minio module with `go install
#          module@version` (the module has no replace directives) into a
#          throwaway GOBIN and caches the binary beside weed's: the first
#          time about 9 CPU-minutes (22 minutes measured on 2 busy cores,
#          docs/s3.md#a-second-s3-server-minio), instant afterwards. No source
#          or binary is kept in this repository.
# start    runs `minio server` bound to 127.0.0.1 on one local drive, with a
#          fixed root access key, update checks and the web console off, and
#          waits until /minio/health/ready answers. The data directory is
#          kept across stop/start.
# stop     stops only the process start launched, by its PID.
# reset    stops it and removes its data directory.
# status   says whether that process is running and where it listens.
#
# Environment (defaults): MINIO_VERSION (pinned below), ILMCTL_CACHE
# (~/.cache/ilmctl), MINIO_STATE (/tmp/ilmctl-minio), MINIO_PORT (9000, the
# S3 API) and MINIO_CONSOLE_PORT (9001) — neither collides with
# scripts/seaweedfs.sh's defaults (9333 8080 8888 8333 and each +10000) —
# and the root credentials MINIO_ACCESS_KEY / MINIO_SECRET_KEY (ilmctl /
# ilmctl-secret, the same as scripts/seaweedfs.sh's, so one set of
# ILMCTL_IT_ACCESS_KEY/ILMCTL_IT_SECRET_KEY serves both servers).
set -euo pipefail
# The Go the Makefile builds with, whatever Go the machine has
# (docs/dependencies.md#vulnerabilities).
export GOTOOLCHAIN="${GOTOOLCHAIN:-go1.27.3}"

MINIO_MODULE=github.com/minio/minio
MINIO_VERSION=${MINIO_VERSION:-v0.0.0-20260212201848-7aac2a2c5b7c}
CACHE=${ILMCTL_CACHE:-$HOME/.cache/ilmctl}
BIN="$CACHE/minio-$MINIO_VERSION"
STATE=${MINIO_STATE:-/tmp/ilmctl-minio}
PORT=${MINIO_PORT:-9000}
CONSOLE_PORT=${MINIO_CONSOLE_PORT:-9001}
ACCESS_KEY=${MINIO_ACCESS_KEY:-ilmctl}
SECRET_KEY=${MINIO_SECRET_KEY:-ilmctl-secret}

log() { echo "minio.sh: $*" >&2; }

install() {
	if [ -x "$BIN" ]; then
		log "using cached $BIN"
		echo "$BIN"
		return
	fi
	mkdir -p "$CACHE"
	local gobin
	gobin=$(mktemp -d "$CACHE/minio-build.XXXXXX")
	log "building $MINIO_MODULE@$MINIO_VERSION through the Go module proxy (about 9 CPU-minutes the first time)"
	local start=$SECONDS
	if ! (cd "$gobin" && GOBIN="$gobin" GOFLAGS=-mod=mod go install "$MINIO_MODULE@$MINIO_VERSION"); then
		rm -rf "$gobin"
		log "go install $MINIO_MODULE@$MINIO_VERSION failed"
		exit 1
	fi
	mv "$gobin/minio" "$BIN"
	rm -rf "$gobin"
	log "built in $((SECONDS - start))s"
	echo "$BIN"
}

pidfile() { echo "$STATE/minio.pid"; }

running() {
	local pf
	pf=$(pidfile)
	[ -f "$pf" ] && kill -0 "$(cat "$pf")" 2>/dev/null
}

wait_ready() {
	local i
	for i in $(seq 1 120); do
		if curl -fsS "http://127.0.0.1:$PORT/minio/health/ready" -o /dev/null 2>/dev/null; then
			return 0
		fi
		running || { log "minio exited; see $STATE/minio.log"; tail -20 "$STATE/minio.log" >&2; return 1; }
		sleep 0.5
	done
	log "minio not ready after 60s; see $STATE/minio.log"
	return 1
}

start() {
	if running; then
		log "already running (pid $(cat "$(pidfile)"))"
		return
	fi
	[ -x "$BIN" ] || install >/dev/null
	mkdir -p "$STATE/data"
	log "starting minio server on 127.0.0.1:$PORT in $STATE"
	MINIO_ROOT_USER="$ACCESS_KEY" MINIO_ROOT_PASSWORD="$SECRET_KEY" \
		MINIO_BROWSER=off MINIO_UPDATE=off MINIO_CALLHOME_ENABLE=off \
		"$BIN" server --quiet --anonymous \
		--address "127.0.0.1:$PORT" --console-address "127.0.0.1:$CONSOLE_PORT" \
		"$STATE/data" >"$STATE/minio.log" 2>&1 &
	echo $! >"$(pidfile)"
	wait_ready
	log "ready"
}

stop() {
	local pf
	pf=$(pidfile)
	if ! running; then
		log "not running"
		rm -f "$pf"
		return
	fi
	local pid
	pid=$(cat "$pf")
	kill "$pid"
	for _ in $(seq 1 40); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.25
	done
	kill -0 "$pid" 2>/dev/null && kill -9 "$pid"
	rm -f "$pf"
	log "stopped pid $pid"
}

reset() {
	stop
	rm -rf "$STATE"
	log "removed $STATE"
}

status() {
	if running; then
		echo "running pid=$(cat "$(pidfile)") s3=127.0.0.1:$PORT state=$STATE"
	else
		echo "stopped"
		return 1
	fi
}

case "${1:-}" in
install) install ;;
start) start ;;
stop) stop ;;
reset) reset ;;
status) status ;;
*)
	echo "usage: $0 install|start|stop|reset|status" >&2
	exit 2
	;;
esac
