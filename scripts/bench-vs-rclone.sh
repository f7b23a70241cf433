#!/usr/bin/env bash
# scripts/bench-vs-rclone.sh — ilmctl's s3:// pass against `rclone delete`
# on the same datasets, on MinIO and on SeaweedFS's S3 gateway
# (docs/benchmarks.md, Against rclone).
#
# Per server (BENCH_SERVERS), with the server started fresh on this
# script's own ports and state directory:
#
# 1. Seeds a dataset of BENCH_OBJECTS small objects (one version each)
#    into a bucket, unversioned and versioning-Enabled, with rclone copy
#    straight to the server.
# 2. Deletes it, through a counting proxy (scripts/benchs3 proxy, which counts the
#    requests by operation), either with
#      rclone delete --min-age 1ms          (every object, as the rule does)
#      s5cmd rm s3://BUCKET/KEY...           (the due list: every key the
#                                             dataset wrote, as the rule)
#    or, on a fresh copy of the same dataset whose lifecycle is one rule,
#    Expiration Date 2020-01-01 (every current version due), with
#      ilmctl run --filer s3://... [--check-cas]
#    and, when BENCH_BEFORE names a git revision, the ilmctl built from it
#    (the comparison "before"). Versioning-Enabled, every client writes a
#    delete marker over each object.
# 3. Checks what is left: no current object, and on the versioned bucket
#    every version still there; prints wall time, requests sent (and per
#    object), and the client's CPU seconds (user+system, /usr/bin/time).
# 4. Prints the goals' ratios: ilmctl's wall time over rclone's (at most
#    1.0 on the unversioned dataset) and, with BENCH_BEFORE, the "before"
#    ilmctl's requests over ilmctl's (at least 10).
#
# MinIO runs a bucket's lifecycle itself: with the rule in place it
# expires what a listing shows due, so part of ilmctl's deletes there end
# NOOP_RESOLVED (docs/s3.md, A second S3 server: MinIO); the outcomes column
# says how many. MinIO also ignores If-Match, so --check-cas refuses it
# and its ilmctl pass runs without the flag: current versions are then
# deleted one DeleteObject each (docs/s3.md, Conditional requests per server).
#
# Environment (defaults):
#   BENCH_SERVERS="seaweedfs minio"
#   BENCH_OBJECTS=5000
#   BENCH_BEFORE=          a git revision to build the "before" ilmctl from
#   BENCH_DIR=/tmp/ilmctl-bench-rclone   binaries, datasets, server state
#   BENCH_SW_PORTS=19433,18180,18988,18433  SeaweedFS master,volume,filer,s3
#   BENCH_MINIO_PORTS=19700,19701          MinIO API,console
#   BENCH_PROXY_PORT=19800
#   ILMCTL_CACHE=~/.cache/ilmctl          where s5cmd is kept once built
# Needs rclone, curl, jq, bc and /usr/bin/time: it installs the Debian
# packages of those missing (scripts/need.sh; as root). The servers are
# built the first time they start (scripts/seaweedfs.sh, scripts/minio.sh),
# s5cmd (S5CMD_VERSION below) the first time the script runs, from the Go
# module proxy; when it does not build, its rows are left out.
set -euo pipefail
# The Go the Makefile builds with, whatever Go the machine has
# (docs/dependencies.md#vulnerabilities).
export GOTOOLCHAIN="${GOTOOLCHAIN:-go1.27.3}"

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SERVERS=${BENCH_SERVERS:-seaweedfs minio}
N=${BENCH_OBJECTS:-5000}
BEFORE=${BENCH_BEFORE:-}
DIR=${BENCH_DIR:-/tmp/ilmctl-bench-rclone}
IFS=, read -r SW_MASTER SW_VOLUME SW_FILER SW_S3 <<<"${BENCH_SW_PORTS:-19433,18180,18988,18433}"
IFS=, read -r MINIO_API MINIO_CONSOLE <<<"${BENCH_MINIO_PORTS:-19700,19701}"
PROXY_PORT=${BENCH_PROXY_PORT:-19800}
KEY=ilmctl
SECRET=ilmctl-secret

log() { echo "bench: $*" >&2; }
die() {
	echo "bench: FAIL: $*" >&2
	exit 1
}
# shellcheck source=scripts/need.sh
. "$ROOT/scripts/need.sh"
need rclone rclone curl curl jq jq bc bc /usr/bin/time time || die "missing tools (above)"
# rclone's SDK refuses a custom CA bundle on its own transport, and the
# servers here are plain http on loopback.
rclone() { env -u AWS_CA_BUNDLE rclone "$@"; }

mkdir -p "$DIR/bin" "$DIR/data"
log "building ilmctl and benchs3"
(cd "$ROOT" && go build -o "$DIR/bin/ilmctl" ./cmd/ilmctl && go build -o "$DIR/bin/benchs3" ./scripts/benchs3)
TOOLS="rclone ilmctl"
# s5cmd builds in a module of its own: `go install ...@version` also asks
# the proxy for the module's list of versions, which some proxies refuse.
S5CMD_VERSION=v2.3.0
S5CMD="${ILMCTL_CACHE:-$HOME/.cache/ilmctl}/s5cmd-$S5CMD_VERSION"
if [ ! -x "$S5CMD" ]; then
	log "building s5cmd $S5CMD_VERSION into $S5CMD"
	rm -rf "$DIR/s5cmd-src" && mkdir -p "$DIR/s5cmd-src" "$(dirname "$S5CMD")"
	(cd "$DIR/s5cmd-src" && go mod init s5cmd-build >/dev/null 2>&1 &&
		go get "github.com/peak/s5cmd/v2@$S5CMD_VERSION" 2>>"$DIR/s5cmd-build.log" &&
		go build -o "$S5CMD.tmp" github.com/peak/s5cmd/v2 2>>"$DIR/s5cmd-build.log" &&
		mv "$S5CMD.tmp" "$S5CMD") ||
		log "s5cmd $S5CMD_VERSION did not build (see $DIR/s5cmd-build.log): its rows are left out"
	rm -rf "$DIR/s5cmd-src"
fi
[ -x "$S5CMD" ] && TOOLS="rclone s5cmd ilmctl"
if [ -n "$BEFORE" ]; then
	log "building ilmctl at $BEFORE"
	rm -rf "$DIR/before-src"
	git -C "$ROOT" worktree add --detach "$DIR/before-src" "$BEFORE" >/dev/null 2>&1
	(cd "$DIR/before-src" && go build -o "$DIR/bin/ilmctl-before" ./cmd/ilmctl)
	git -C "$ROOT" worktree remove --force "$DIR/before-src"
	TOOLS="$TOOLS ilmctl-before"
fi

if [ ! -d "$DIR/data/objects-$N" ]; then
	mkdir -p "$DIR/data/objects-$N"
	for i in $(seq -w 1 "$N"); do echo "object $i" >"$DIR/data/objects-$N/obj-$i"; done
fi

export RCLONE_CONFIG_DIRECT_TYPE=s3 RCLONE_CONFIG_DIRECT_ACCESS_KEY_ID=$KEY RCLONE_CONFIG_DIRECT_SECRET_ACCESS_KEY=$SECRET
export RCLONE_CONFIG_PROXIED_TYPE=s3 RCLONE_CONFIG_PROXIED_ACCESS_KEY_ID=$KEY RCLONE_CONFIG_PROXIED_SECRET_ACCESS_KEY=$SECRET
export RCLONE_CONFIG_PROXIED_ENDPOINT=http://127.0.0.1:$PROXY_PORT
export AWS_ACCESS_KEY_ID=$KEY AWS_SECRET_ACCESS_KEY=$SECRET

PROXY_PID=
STOP=
cleanup() {
	[ -n "$PROXY_PID" ] && kill "$PROXY_PID" 2>/dev/null || true
	[ -n "$STOP" ] && eval "$STOP" >/dev/null 2>&1 || true
}
trap cleanup EXIT

counts() { curl -sf "http://127.0.0.1:$PROXY_PORT/__counts"; }
# ratio A B: A / B to two places.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }


declare -A WALL REQS
: >"$DIR/ratios.txt"
echo "load average at the start: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) CPUs" >"$DIR/load.txt"
printf '\n| server | dataset | client | wall s | requests | per object | client CPU s | outcomes |\n|---|---|---|---|---|---|---|---|\n' >"$DIR/table.md"

for server in $SERVERS; do
	case $server in
	seaweedfs)
		export SEAWEEDFS_STATE="$DIR/seaweedfs" WEED_MASTER_PORT=$SW_MASTER WEED_VOLUME_PORT=$SW_VOLUME WEED_FILER_PORT=$SW_FILER WEED_S3_PORT=$SW_S3
		"$ROOT/scripts/seaweedfs.sh" reset >/dev/null 2>&1 || true
		"$ROOT/scripts/seaweedfs.sh" start
		STOP="'$ROOT/scripts/seaweedfs.sh' stop"
		PORT=$SW_S3 PROVIDER=SeaweedFS CAS=--check-cas
		;;
	minio)
		export MINIO_STATE="$DIR/minio" MINIO_PORT=$MINIO_API MINIO_CONSOLE_PORT=$MINIO_CONSOLE
		"$ROOT/scripts/minio.sh" reset >/dev/null 2>&1 || true
		"$ROOT/scripts/minio.sh" start
		STOP="'$ROOT/scripts/minio.sh' stop"
		PORT=$MINIO_API PROVIDER=Minio CAS=
		;;
	*) die "BENCH_SERVERS: unknown server $server (seaweedfs, minio)" ;;
	esac
	ENDPOINT=http://127.0.0.1:$PORT
	export RCLONE_CONFIG_DIRECT_PROVIDER=$PROVIDER RCLONE_CONFIG_PROXIED_PROVIDER=$PROVIDER RCLONE_CONFIG_DIRECT_ENDPOINT=$ENDPOINT
	"$DIR/bin/benchs3" proxy -listen "127.0.0.1:$PROXY_PORT" -to "$ENDPOINT" 2>"$DIR/proxy.log" &
	PROXY_PID=$!
	for _ in $(seq 50); do counts >/dev/null 2>&1 && break; sleep 0.1; done

	for dataset in unversioned versioned; do
		for tool in $TOOLS; do
			bucket="bench-$dataset-${tool//[^a-z]/}"
			flags=()
			[ "$dataset" = versioned ] && flags+=(-versioning)
			"$DIR/bin/benchs3" bucket -endpoint "$ENDPOINT" "${flags[@]}" "$bucket"
			rclone copy --transfers 16 "$DIR/data/objects-$N" "direct:$bucket" 2>>"$DIR/rclone.log"
			state="$DIR/state-$server-$bucket"
			rm -rf "$state"
			cas=
			case $tool in
			rclone) cmd=(env -u AWS_CA_BUNDLE rclone delete --min-age 1ms "proxied:$bucket") ;;
			s5cmd)
				# The due list: every key the dataset wrote, named one by one
				# (s5cmd sends them as DeleteObjects of up to 1,000).
				mapfile -t due < <(ls "$DIR/data/objects-$N" | sed "s|^|s3://$bucket/|")
				cmd=(env -u AWS_CA_BUNDLE "$S5CMD" --endpoint-url "http://127.0.0.1:$PROXY_PORT" rm "${due[@]}")
				;;
			*)
				# The pass walks every bucket with rules: only this one has any.
				"$DIR/bin/benchs3" bucket -endpoint "$ENDPOINT" -expire-date 2020-01-01T00:00:00Z "$bucket" 2>/dev/null ||
					die "lifecycle of $bucket on $server"
				[ "$tool" = ilmctl ] && cas=$CAS
				cmd=("$DIR/bin/$tool" run --filer "s3://127.0.0.1:$PROXY_PORT" --s3-path-style --state "$state" $cas -o json --quiet)
				;;
			esac
			counts >/dev/null
			shown="${cmd[*]}"
			[ "$tool" != s5cmd ] || shown="${cmd[*]:0:7} ${due[0]} ... (the ${#due[@]} keys of the due list)"
			log "$server $dataset: $shown"
			/usr/bin/time -f "%e %U %S" -o "$DIR/time" "${cmd[@]}" >"$DIR/out.json" 2>"$DIR/err.log" || die "$tool on $server/$dataset failed: $(tail -3 "$DIR/err.log")"
			[[ $tool != ilmctl* ]] || "$DIR/bin/benchs3" unlifecycle -endpoint "$ENDPOINT" "$bucket"
			reqs=$(counts)
			read -r wall user sys <"$DIR/time"
			total=$(jq '[.[]] | add // 0' <<<"$reqs")
			outcomes=-
			[[ $tool != ilmctl* ]] || outcomes=$(jq -r '[.buckets[].outcomes | to_entries[]] | group_by(.key) | map("\(.[0].key) \(map(.value) | add)") | join(", ")' "$DIR/out.json" 2>/dev/null || echo "?")
			current=$(rclone lsf "direct:$bucket" | wc -l)
			[ "$current" -eq 0 ] || die "$tool left $current current objects in $server/$bucket"
			if [ "$dataset" = versioned ]; then
				versions=$(rclone lsf --s3-versions "direct:$bucket" | wc -l)
				[ "$versions" -eq "$N" ] || die "$tool left $versions versions in $server/$bucket, want $N"
			fi
			printf '| %s | %s, %d objects | %s %s | %.1f | %d (%s) | %.2f | %.2f | %s |\n' "$server" "$dataset" "$N" "$tool" "$cas" "$wall" "$total" \
				"$(jq -r 'to_entries | map("\(.key) \(.value)") | join(", ")' <<<"$reqs")" "$(echo "$total / $N" | bc -l)" "$(echo "$user + $sys" | bc -l)" "$outcomes" >>"$DIR/table.md"
			WALL[$tool]=$wall REQS[$tool]=$total
		done
		{
			goal=
			[ "$dataset" = unversioned ] && goal=" (goal <= 1.00)"
			echo "$server $dataset: ilmctl / rclone, wall time: $(ratio "${WALL[ilmctl]}" "${WALL[rclone]}")$goal"
			[ -z "$BEFORE" ] || echo "$server $dataset: requests per delete, ilmctl at $BEFORE / ilmctl: $(ratio "${REQS[ilmctl-before]}" "${REQS[ilmctl]}") (goal >= 10)"
		} >>"$DIR/ratios.txt"
	done
	kill "$PROXY_PID"
	wait "$PROXY_PID" 2>/dev/null || true
	PROXY_PID=
	eval "$STOP"
	STOP=
done
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$DIR/table.md"
cat "$DIR/load.txt" "$DIR/table.md"
echo
cat "$DIR/ratios.txt"
