#!/usr/bin/env bash
# scripts/seaweedfs.sh install|start|stop|crash|reset|status — a real SeaweedFS for
# ilmctl's integration tests and demos, on loopback only.
#
# install  fetches the pinned seaweedfs module with the go command (no source
#          or binary is kept in this repository), builds ./weed inside a
#          writable copy (go install refuses the module: it has replace
#          directives) and caches the binary; about 9 minutes on 2 cores the
#          first time, instant afterwards.
# start    runs `weed server -filer -s3` bound to 127.0.0.1, telemetry off, in a
#          temp dir, with S3 credentials, and waits until the filer and S3
#          answer. Never `weed mini`: its built-in lifecycle worker would
#          compete with ilmctl.
#          The data directory is kept across stop/start, so a test can kill
#          the server mid-pass and restart it with the same contents.
# stop     stops only the process start launched, by its PID.
# crash    kills it with SIGKILL, as a crash would, and waits until it is gone.
# reset    stops it and removes its data directory.
# status   says whether that process is running and where it listens.
#
# Environment (defaults): SEAWEEDFS_VERSION (pinned below), ILMCTL_CACHE
# (~/.cache/ilmctl), SEAWEEDFS_STATE (/tmp/ilmctl-seaweedfs), HTTP ports
# WEED_MASTER_PORT (9333) WEED_VOLUME_PORT (8080) WEED_FILER_PORT (8888)
# WEED_S3_PORT (8333) — SeaweedFS's gRPC ports are each +10000, so the filer
# gRPC is 18888 and the S3 gRPC 18333 — and S3 credentials WEED_ACCESS_KEY /
# WEED_SECRET_KEY.
set -euo pipefail
# The Go the Makefile builds with, whatever Go the machine has
# (docs/dependencies.md#vulnerabilities).
export GOTOOLCHAIN="${GOTOOLCHAIN:-go1.27.3}"

SEAWEEDFS_MODULE=github.com/seaweedfs/seaweedfs
SEAWEEDFS_VERSION=${SEAWEEDFS_VERSION:-v0.0.0-20261109003541-7506e5f91cd6}
CACHE=${ILMCTL_CACHE:-$HOME/.cache/ilmctl}
WEED="$CACHE/weed-$SEAWEEDFS_VERSION"
STATE=${SEAWEEDFS_STATE:-/tmp/ilmctl-seaweedfs}
MASTER_PORT=${WEED_MASTER_PORT:-9333}
VOLUME_PORT=${WEED_VOLUME_PORT:-8080}
FILER_PORT=${WEED_FILER_PORT:-8888}
S3_PORT=${WEED_S3_PORT:-8333}
ACCESS_KEY=${WEED_ACCESS_KEY:-ilmctl}
SECRET_KEY=${WEED_SECRET_KEY:-ilmctl-secret}

log() { echo "seaweedfs.sh: $*" >&2; }

install() {
	if [ -x "$WEED" ]; then
		log "using cached $WEED"
		echo "$WEED"
		return
	fi
	mkdir -p "$CACHE"
	log "downloading $SEAWEEDFS_MODULE@$SEAWEEDFS_VERSION through the Go module proxy"
	local dir
	dir=$(cd "$CACHE" && GOFLAGS=-mod=mod go mod download -json "$SEAWEEDFS_MODULE@$SEAWEEDFS_VERSION" |
		sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
	[ -n "$dir" ] && [ -d "$dir" ] || { log "go mod download gave no module directory"; exit 1; }
	local src="$CACHE/seaweedfs-src-$SEAWEEDFS_VERSION"
	rm -rf "$src"
	cp -R "$dir" "$src"
	chmod -R u+w "$src"
	log "building weed (first time: about 9 minutes on 2 cores)"
	(cd "$src" && go build -o "$WEED.tmp" ./weed)
	mv "$WEED.tmp" "$WEED"
	rm -rf "$src"
	echo "$WEED"
}

pidfile() { echo "$STATE/weed.pid"; }

running() {
	local pf
	pf=$(pidfile)
	[ -f "$pf" ] && kill -0 "$(cat "$pf")" 2>/dev/null
}

wait_ready() {
	local i
	for i in $(seq 1 120); do
		if curl -fsS "http://127.0.0.1:$FILER_PORT/" -o /dev/null 2>/dev/null &&
			curl -sS "http://127.0.0.1:$S3_PORT/" -o /dev/null 2>/dev/null; then
			return 0
		fi
		running || { log "weed exited; see $STATE/weed.log"; tail -20 "$STATE/weed.log" >&2; return 1; }
		sleep 0.5
	done
	log "weed not ready after 60s; see $STATE/weed.log"
	return 1
}

start() {
	if running; then
		log "already running (pid $(cat "$(pidfile)"))"
		return
	fi
	[ -x "$WEED" ] || install >/dev/null
	mkdir -p "$STATE/data"
	cat >"$STATE/s3.json" <<JSON
{"identities":[{"name":"ilmctl","credentials":[{"accessKey":"$ACCESS_KEY","secretKey":"$SECRET_KEY"}],
  "actions":["Admin","Read","List","Tagging","Write"]}]}
JSON
	# Every bucket is its own collection and grows 7 volumes on first write;
	# with the default 30 GB volume size, -volume.max=0 (free space / volume
	# size) allows only a couple of volumes on a small disk, and writes to a
	# new bucket fail with "No writable volumes". Small, sparse volumes and an
	# explicit count keep a test run's many buckets writable.
	log "starting weed server on 127.0.0.1 (filer :$FILER_PORT, S3 :$S3_PORT) in $STATE"
	"$WEED" server -ip=127.0.0.1 -ip.bind=127.0.0.1 -dir="$STATE/data" \
		-master.port="$MASTER_PORT" -volume.port="$VOLUME_PORT" \
		-master.volumeSizeLimitMB=64 -volume.max=1000 \
		-master.telemetry=false \
		-filer -filer.port="$FILER_PORT" \
		-s3 -s3.port="$S3_PORT" -s3.config="$STATE/s3.json" \
		>"$STATE/weed.log" 2>&1 &
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

# crash: kill -9 at once, as a crash would, and wait until it is gone:
# the filer's unpersisted meta-log events (up to a minute) are lost.
crash() {
	local pf pid
	pf=$(pidfile)
	running || { log "not running"; return 1; }
	pid=$(cat "$pf")
	kill -9 "$pid"
	for _ in $(seq 1 40); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.25
	done
	kill -0 "$pid" 2>/dev/null && { log "pid $pid still runs after SIGKILL"; return 1; }
	rm -f "$pf"
	log "killed pid $pid"
}

reset() {
	stop
	rm -rf "$STATE"
	log "removed $STATE"
}

status() {
	if running; then
		echo "running pid=$(cat "$(pidfile)") filer=127.0.0.1:$FILER_PORT filer_grpc=127.0.0.1:$((FILER_PORT + 10000)) s3=127.0.0.1:$S3_PORT s3_grpc=127.0.0.1:$((S3_PORT + 10000)) state=$STATE"
	else
		echo "stopped"
		return 1
	fi
}

case "${1:-}" in
install) install ;;
start) start ;;
stop) stop ;;
crash) crash ;;
reset) reset ;;
status) status ;;
*)
	echo "usage: $0 install|start|stop|crash|reset|status" >&2
	exit 2
	;;
esac
