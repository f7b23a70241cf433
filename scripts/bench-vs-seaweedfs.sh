#!/usr/bin/env bash
# scripts/bench-vs-seaweedfs.sh — ilmctl run against SeaweedFS's own
# lifecycle worker, side by side on one dataset (docs/benchmarks.md).
#
# 1. Builds ilmctl, scripts/benchseed and scripts/floor, and weed
#    (scripts/seaweedfs.sh install; cached after the first time).
# 2. Starts two fresh SeaweedFS servers on loopback with non-default ports
#    (A and B below, and later C for the floor; the default 8888/8333
#    instance is never touched).
# 3. Seeds A with a deterministic dataset (benchseed seed: about 121k
#    versions, delete markers and uploads times BENCH_SCALE, over 8 buckets
#    and 10 rules — Expiration Days on versioned and unversioned buckets,
#    NoncurrentDays, NewerNoncurrentVersions, a tag filter,
#    ExpiredObjectDeleteMarker, AbortIncompleteMultipartUpload — with the
#    due part backdated through the filer), copies A's stopped data
#    directory to B (seeding is a third of the script's time at scale 1,
#    most of it at larger scales; the copy halves it and gives B the same
#    meta-log), and checks that the two servers list the same thing.
# 4. Times one pass of each, alone on the machine (the other server's
#    process is held with SIGSTOP while one is measured; neither is
#    restarted between passes, as a cluster runs between daily passes):
#      A: weed shell  s3.lifecycle.run-shard -shards 0-15 -events 0
#      B: ilmctl run  --due-rounding exact --expired-marker-days keep
#    The two flags are SeaweedFS's semantics where ilmctl follows AWS by
#    default: unrounded due times, and Expiration Days keeping expired
#    object delete markers (SeaweedFS's worker never removes them, S3 does),
#    so what both leave must match exactly.
# 5. Lists both again and fails loudly if what they left differs; prints
#    both pass times and ilmctl/SeaweedFS (goal: <= 0.3), and beside each
#    the CPU seconds of the client (weed shell / ilmctl) and of the weed
#    server process over the pass, and the load average when it started:
#    on a shared machine, compare CPU seconds rather than wall time.
# 6. The day after: the same churn on both servers at the same times
#    (benchseed churn: 1 % of the keys overwritten, deleted or retagged,
#    through S3), then one daily pass of each, measured the same way, from
#    the cursors its cold pass saved. What both leave is compared with
#    benchseed compare, which counts the differences where SeaweedFS's
#    worker (the pinned version) is known to part from AWS and ilmctl
#    leaves what AWS leaves (under NewerNoncurrentVersions 2 in
#    bench-newer it may keep a third noncurrent version or remove the
#    second-newest; it keeps aged objects retagged into bench-tags'
#    filter), prints each count, and fails on any other difference.
# 7. Two quiet days: two more passes of each with no churn before them,
#    measured and compared the same way, with the versions each changed:
#    what a daily pass costs once the cold pass's own deletes have been
#    replayed. Prints ilmctl's CPU over SeaweedFS's for each, and for the
#    daily pass and the quiet days together.
# 8. The floor of ilmctl's cold and daily passes (the quiet days delete
#    nothing): server C started on a copy of the data the pass began from,
#    and scripts/floor sending it exactly the LifecycleDelete calls of the
#    pass's -o jsonl, with the same concurrency; it looks each key up once
#    before it starts measuring, and the measured part makes no reads of
#    its own (an AbortMPU call still looks its upload up, as the pass's
#    does). Its client + server CPU is what the deletes alone cost.
#    Prints each pass's client + server CPU over that floor (goals: cold
#    <= 1.3, daily <= 1.5; SeaweedFS's passes are divided by the same
#    floors, their deletes being the same but for the known difference)
#    and ilmctl's daily CPU over SeaweedFS's (goal <= 0.2). Before the
#    cold floor, the cold pass again with --dry-run on C: its reads and
#    decisions alone, so that the cold pass's CPU splits into the floor
#    (its deletes), the dry run (reading the dataset and deciding) and the
#    rest (the re-read before each delete, the meta-log events of the
#    pass's own deletes, and dispatching).
#
# Environment (defaults):
#   BENCH_SCALE=1          dataset multiplier (1 = 121k versions; 4 = 484k,
#                          whose seeding alone takes 30-50 minutes on 2 cores;
#                          a fraction such as 0.25 for a quicker run)
#   BENCH_DIR=/tmp/ilmctl-bench   binaries, listings, logs, profiles,
#                          the passes' -o jsonl, and the servers' state
#                          (server-a/, server-b/, server-c/, floor-*/)
#   BENCH_PROFILE=0        1 = also profile ilmctl's CPU and print the top
#                          of each pass's profile (ilmctl always runs under
#                          benchseed profile-run, which counts its gRPC
#                          calls by method)
#   BENCH_KEEP=0           1 = leave both servers' data dirs for inspection
#   BENCH_ILMCTL_FLAGS=    more `ilmctl run` flags for both of ilmctl's
#                          passes, e.g. "--walker-interval 24h"
#   BENCH_A_PORTS=9433,8180,8988,8433  master,volume,filer,s3 of server A
#   BENCH_B_PORTS=9533,8280,9088,8533  master,volume,filer,s3 of server B
#   BENCH_C_PORTS=9633,8380,9188,8633  master,volume,filer,s3 of server C
#   (gRPC ports are each +10000.) Two runs at once need different
#   BENCH_DIR and ports. On a busy machine keep every port, gRPC and the
#   rpc-proxies' included, out of the kernel's ephemeral range (Linux:
#   32768-60999), e.g. HTTP ports 21333-21890 and
#   BENCH_PROXY_PORTS=22888,22433.
#   BENCH_PROXY_PORTS=(A's filer + 20000),(A's s3 + 20000)  where the two
#                          rpc-proxies counting SeaweedFS's calls listen
#
# Exit status: 0 both left the same set (after the daily passes, but for
# the known difference); 1 setup, a pass or a floor failed, or the sets
# differ. The ratio goals are reported, not enforced.
set -euo pipefail
# The Go the Makefile builds with, whatever Go the machine has
# (docs/dependencies.md#vulnerabilities).
export GOTOOLCHAIN="${GOTOOLCHAIN:-go1.27.3}"

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/need.sh
. "$ROOT/scripts/need.sh"
need curl curl || exit 1
SW="$ROOT/scripts/seaweedfs.sh"
SCALE=${BENCH_SCALE:-1}
DIR=${BENCH_DIR:-/tmp/ilmctl-bench}
PROFILE=${BENCH_PROFILE:-0}
KEEP=${BENCH_KEEP:-0}
IFS=, read -r A_MASTER A_VOLUME A_FILER A_S3 <<<"${BENCH_A_PORTS:-9433,8180,8988,8433}"
IFS=, read -r B_MASTER B_VOLUME B_FILER B_S3 <<<"${BENCH_B_PORTS:-9533,8280,9088,8533}"
IFS=, read -r C_MASTER C_VOLUME C_FILER C_S3 <<<"${BENCH_C_PORTS:-9633,8380,9188,8633}"
IFS=, read -r P_FILER P_S3 <<<"${BENCH_PROXY_PORTS:-$((A_FILER + 20000)),$((A_S3 + 20000))}"

log() { echo "bench: $*" >&2; }
die() {
	echo "bench: FAIL: $*" >&2
	exit 1
}

for p in "$A_MASTER" "$A_VOLUME" "$A_FILER" "$A_S3" "$B_MASTER" "$B_VOLUME" "$B_FILER" "$B_S3" "$C_MASTER" "$C_VOLUME" "$C_FILER" "$C_S3" "$P_FILER" "$P_S3"; do
	case "$p" in
	9333 | 8080 | 8888 | 8333) die "port $p belongs to the default scripts/seaweedfs.sh instance; pick other BENCH_*_PORTS" ;;
	'' | *[!0-9]*) die "bad port '$p' in BENCH_A_PORTS/BENCH_B_PORTS/BENCH_C_PORTS/BENCH_PROXY_PORTS" ;;
	esac
done

# srv a|b|c <seaweedfs.sh command>: scripts/seaweedfs.sh for server A, B
# or C (C, the floor's, runs on copies of A's or B's data too).
# B runs on a copy of A's data directory under other ports, so its master
# sees a volume server whose topology ID it did not issue, and by default
# freezes volume growth ("volume growth is frozen after master state
# loss"): once the copied volumes fill, the filer cannot write its
# meta-log and every LifecycleDelete waits. Both servers are this
# script's own copies, so the check is off
# (master.volume_growth.freeze_on_topology_mismatch, as an environment
# variable).
#
# A start is tried three times: weed exits when a port it binds is taken,
# and a gRPC port (HTTP port + 10000) can fall in the kernel's ephemeral
# range, briefly held by a client connection in TIME-WAIT.
srv() {
	local which=$1 try
	shift
	export WEED_MASTER_VOLUME_GROWTH_FREEZE_ON_TOPOLOGY_MISMATCH=false
	if [ "$1" = start ]; then
		for try in 1 2 3; do
			srv1 "$which" start && return 0
			log "server $which did not start (try $try of 3)"
			srv1 "$which" stop || true
			sleep 30
		done
		return 1
	fi
	srv1 "$which" "$@"
}

srv1() {
	local which=$1
	shift
	if [ "$which" = a ]; then
		SEAWEEDFS_STATE="$DIR/server-a" WEED_MASTER_PORT=$A_MASTER WEED_VOLUME_PORT=$A_VOLUME \
			WEED_FILER_PORT=$A_FILER WEED_S3_PORT=$A_S3 "$SW" "$@"
	elif [ "$which" = b ]; then
		SEAWEEDFS_STATE="$DIR/server-b" WEED_MASTER_PORT=$B_MASTER WEED_VOLUME_PORT=$B_VOLUME \
			WEED_FILER_PORT=$B_FILER WEED_S3_PORT=$B_S3 "$SW" "$@"
	else
		SEAWEEDFS_STATE="$DIR/server-c" WEED_MASTER_PORT=$C_MASTER WEED_VOLUME_PORT=$C_VOLUME \
			WEED_FILER_PORT=$C_FILER WEED_S3_PORT=$C_S3 "$SW" "$@"
	fi
}

# hold a|b: the server's weed process stopped (SIGSTOP) while the other
# server is measured; release a|b: continued (SIGCONT) once it serves
# again. A held server keeps running, as a cluster does between daily
# passes: a restarted filer is a new writer of its meta-log, which may
# have lost the newest events, so ilmctl walks every rule after one
# (docs/design/daily-run.md#filer-restarts), and SeaweedFS loses the
# events it had not persisted (docs/seaweedfs.md).
held_pid() { cat "$DIR/server-$1/weed.pid"; }
hold() { kill -STOP "$(held_pid "$1")"; }
release() {
	local i filer s3
	kill -CONT "$(held_pid "$1")"
	case $1 in
	a) filer=$A_FILER s3=$A_S3 ;;
	b) filer=$B_FILER s3=$B_S3 ;;
	esac
	for i in $(seq 1 120); do
		if curl -fsS "http://127.0.0.1:$filer/" -o /dev/null 2>/dev/null &&
			curl -sS "http://127.0.0.1:$s3/" -o /dev/null 2>/dev/null; then
			return 0
		fi
		sleep 0.5
	done
	die "server $1 does not serve 60s after it was continued"
}

# settle_b: a write to B's filer outside the buckets, then a wait until
# its meta-log has a file more: ilmctl knows a filer process by its first
# persisted file, and a cold pass that ran before that would read the
# first daily pass's as a restart (docs/design/daily-run.md#filer-restarts).
log_files_b() {
	local d
	for d in "$(date -u -d yesterday +%Y-%m-%d)" "$(date -u +%Y-%m-%d)"; do
		curl -fsS -H 'Accept: application/json' \
			"http://127.0.0.1:$B_FILER/topics/.system/log/$d/?limit=100000" 2>/dev/null || true
	done | grep -o '"FullPath"' | wc -l
}
settle_b() {
	local n0 i
	n0=$(log_files_b)
	date >"$DIR/settle"
	curl -fsS -F "file=@$DIR/settle" "http://127.0.0.1:$B_FILER/ilmctl-bench/" -o /dev/null ||
		die "write to B's filer failed"
	for i in $(seq 1 360); do
		[ "$(log_files_b)" -gt "$n0" ] && return 0
		sleep 0.5
	done
	die "B's filer did not persist its meta-log within 3 minutes"
}

STARTED=0
cleanup() {
	local rc=$?
	if [ "$STARTED" = 1 ]; then
		for w in a b; do
			[ -f "$DIR/server-$w/weed.pid" ] && kill -CONT "$(held_pid "$w")" 2>/dev/null
		done
		if [ "$KEEP" = 1 ]; then
			srv a stop || true
			srv b stop || true
			srv c stop || true
			log "kept $DIR/server-a, $DIR/server-b and $DIR/server-c (BENCH_KEEP=1)"
		else
			srv a reset || true
			srv b reset || true
			srv c reset || true
			rm -rf "$DIR/floor-cold" "$DIR/floor-daily"
		fi
	fi
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

now() { date +%s.%N; }
CLK_TCK=$(getconf CLK_TCK)
# weed_cpu a|b: CPU seconds (user+system) the server's weed process has used.
weed_cpu() {
	local pid
	pid=$(cat "$DIR/server-$1/weed.pid")
	awk -v t="$CLK_TCK" '{ printf "%.2f", ($14 + $15) / t }' "/proc/$pid/stat"
}
loadavg() { cut -d' ' -f1-3 /proc/loadavg; }
# The client's CPU seconds (user+system) come from bash's time.
TIMEFORMAT='%3U %3S'
cpu_of() { awk '{ printf "%.2f", $1 + $2 }' "$1"; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
# ratio A B: A / B to two places; total A B: A + B.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }
total() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", a + b }'; }
# get NAME: the value of the variable named NAME.
get() { printf '%s' "${!1}"; }

mkdir -p "$DIR/bin"
log "building ilmctl, benchseed and floor into $DIR/bin"
(cd "$ROOT" && go build -o "$DIR/bin/ilmctl" ./cmd/ilmctl && go build -o "$DIR/bin/benchseed" ./scripts/benchseed &&
	go build -o "$DIR/bin/floor" ./scripts/floor) ||
	die "build failed"
WEED=$("$SW" install)
[ -x "$WEED" ] || die "no weed binary from scripts/seaweedfs.sh install"
SEED="$DIR/bin/benchseed"
FLOOR="$DIR/bin/floor"

log "fresh servers: A (SeaweedFS worker) filer :$A_FILER s3 :$A_S3; B (ilmctl) filer :$B_FILER s3 :$B_S3"
STARTED=1
srv a reset
srv b reset
srv c reset
srv a start

VERSIONS=$("$SEED" count -scale "$SCALE")
# Each server needs about 4 KiB of disk per version (volumes, filer store,
# meta-log), and there are four copies (A, B and the floors' two
# snapshots); refuse early rather than fail half-way through seeding.
need_kb=$((VERSIONS * 4 * 4 + 1024 * 1024))
avail_kb=$(df -Pk "$DIR" | awk 'NR == 2 { print $4 }')
[ "$avail_kb" -ge "$need_kb" ] || die "$DIR has $((avail_kb / 1024)) MiB free, the servers and snapshots need about $((need_kb / 1024)) MiB at scale $SCALE"
log "seeding $VERSIONS versions/markers/uploads into A (scale $SCALE)"
t0=$(now)
"$SEED" seed -s3 "127.0.0.1:$A_S3" -filer "127.0.0.1:$A_FILER" -scale "$SCALE" 2>"$DIR/seed-a.log" ||
	{ tail -5 "$DIR/seed-a.log" >&2; die "seeding A failed (see $DIR/seed-a.log)"; }
log "seeded A in $(elapsed "$t0" "$(now)")s; copying its data directory to B"
srv a stop
mkdir -p "$DIR/server-b"
cp -a "$DIR/server-a/data" "$DIR/server-b/data"
srv a start
srv b start

"$SEED" list -s3 "127.0.0.1:$A_S3" -scale "$SCALE" >"$DIR/before-a.txt" || die "listing A failed"
"$SEED" list -s3 "127.0.0.1:$B_S3" -scale "$SCALE" >"$DIR/before-b.txt" || die "listing B failed"
n=$(wc -l <"$DIR/before-a.txt")
[ "$n" -eq "$VERSIONS" ] || die "server A lists $n entries after seeding, want $VERSIONS"
cmp -s "$DIR/before-a.txt" "$DIR/before-b.txt" ||
	{ diff "$DIR/before-a.txt" "$DIR/before-b.txt" | head -20 >&2; die "the two servers hold different datasets before the passes"; }
log "both servers hold the same $n entries"

# Snapshot the starting point of the cold pass's floor (server C runs on
# it later): the data B starts from.
srv a stop
srv b stop
rm -rf "$DIR/floor-cold"
cp -a "$DIR/server-a/data" "$DIR/floor-cold"

# Measure each pass alone: both servers started once and held, then each
# one released, measured and held again in turn (see hold), never
# restarted from here on.
srv a start
srv b start
settle_b
hold a
hold b
#
# proxy LABEL NAME LISTEN TO: benchseed rpc-proxy forwarding LISTEN to TO
# in the background, counting the calls by method into
# $DIR/seaweedfs-LABEL-NAME.rpc once stopped (kill -TERM); its PID is in
# PROXY_PID. Waits until it listens.
proxy() {
	local i
	"$SEED" rpc-proxy -listen "$3" -to "$4" 2>"$DIR/seaweedfs-$1-$2.rpc" &
	PROXY_PID=$!
	for i in $(seq 1 100); do
		(exec 3<>"/dev/tcp/${3%:*}/${3##*:}") 2>/dev/null && return 0
		kill -0 "$PROXY_PID" 2>/dev/null || die "rpc-proxy $3 -> $4 exited (see $DIR/seaweedfs-$1-$2.rpc)"
		sleep 0.1
	done
	die "rpc-proxy $3 -> $4 does not listen"
}

# sw_pass LABEL: one pass of SeaweedFS's worker on A; sets SW_SECS_LABEL,
# SW_CLIENT_LABEL, SW_SERVER_LABEL and SW_LOAD_LABEL. Its gRPC calls to
# the filer and the S3 gateway go through two rpc-proxies (on
# BENCH_PROXY_PORTS), which count them by method; the master's are not
# counted.
sw_pass() {
	local label=$1 c0 t0 t1 v fp sp
	release a
	proxy "$label" filer "127.0.0.1:$P_FILER" "127.0.0.1:$((A_FILER + 10000))"
	fp=$PROXY_PID
	proxy "$label" s3 "127.0.0.1:$P_S3" "127.0.0.1:$((A_S3 + 10000))"
	sp=$PROXY_PID
	log "A ($label): weed shell s3.lifecycle.run-shard -shards 0-15 -events 0 (load average $(loadavg))"
	printf -v "SW_LOAD_$label" '%s' "$(loadavg)"
	c0=$(weed_cpu a)
	t0=$(now)
	{ time printf 's3.lifecycle.run-shard -shards 0-15 -s3 127.0.0.1:%s -events 0\nexit\n' "$P_S3" |
		"$WEED" shell -master="127.0.0.1:$A_MASTER" -filer="127.0.0.1:$A_FILER.$P_FILER" >"$DIR/seaweedfs-$label.log" 2>&1; } 2>"$DIR/seaweedfs-$label.time" ||
		{ tail -20 "$DIR/seaweedfs-$label.log" >&2; die "weed shell failed (see $DIR/seaweedfs-$label.log)"; }
	t1=$(now)
	kill -TERM "$fp" "$sp"
	wait "$fp" "$sp" || true
	printf -v "SW_SECS_$label" '%s' "$(elapsed "$t0" "$t1")"
	printf -v "SW_SERVER_$label" '%s' "$(awk -v a="$c0" -v b="$(weed_cpu a)" 'BEGIN { printf "%.1f", b - a }')"
	printf -v "SW_CLIENT_$label" '%s' "$(cpu_of "$DIR/seaweedfs-$label.time")"
	grep -q 'complete; cursors checkpointed' "$DIR/seaweedfs-$label.log" ||
		{ tail -20 "$DIR/seaweedfs-$label.log" >&2; die "run-shard did not finish its $label pass (see $DIR/seaweedfs-$label.log)"; }
	if grep -qiE '^(> )?error|daily_run: status=error' "$DIR/seaweedfs-$label.log"; then
		tail -20 "$DIR/seaweedfs-$label.log" >&2
		die "run-shard reported an error (see $DIR/seaweedfs-$label.log)"
	fi
	v="SW_SECS_$label"
	log "A ($label): SeaweedFS pass took ${!v}s"
	hold a
}

ILM_FLAGS=(--due-rounding exact --expired-marker-days keep --runtime 60m -o jsonl --quiet)
read -r -a extra <<<"${BENCH_ILMCTL_FLAGS:-}"
ILM_FLAGS+=("${extra[@]}")

# ilmctl_run SERVER PREFIX LABEL BASE PROFILE [FLAG...]: one ilmctl run
# with ILM_FLAGS and FLAGs against server SERVER (b or c), through
# benchseed profile-run so its gRPC calls are counted by method (and its
# CPU profiled into PROFILE, unless that is -). Its output goes to
# $DIR/BASE.jsonl, .log and .time. Sets PREFIX_SECS_LABEL,
# PREFIX_CLIENT_LABEL, PREFIX_SERVER_LABEL and PREFIX_LOAD_LABEL; dies
# unless the run ends ok.
ilmctl_run() {
	local srv=$1 prefix=$2 label=$3 base=$4 prof=$5 filer s3 c0 t0 t1
	shift 5
	filer="${srv^^}_FILER" s3="${srv^^}_S3"
	local args=(--filer "seaweedfs://127.0.0.1:${!filer}" --s3-grpc "127.0.0.1:$((${!s3} + 10000))" "${ILM_FLAGS[@]}" "$@")
	log "${srv^^} ($base): ilmctl run ${args[*]} (load average $(loadavg))"
	printf -v "${prefix}_LOAD_$label" '%s' "$(loadavg)"
	c0=$(weed_cpu "$srv")
	t0=$(now)
	{ time "$SEED" profile-run "$prof" "${args[@]}" >"$DIR/$base.jsonl" 2>"$DIR/$base.log"; } 2>"$DIR/$base.time" ||
		{ tail -20 "$DIR/$base.log" >&2; die "ilmctl run failed (see $DIR/$base.log)"; }
	t1=$(now)
	printf -v "${prefix}_SECS_$label" '%s' "$(elapsed "$t0" "$t1")"
	printf -v "${prefix}_SERVER_$label" '%s' "$(awk -v a="$c0" -v b="$(weed_cpu "$srv")" 'BEGIN { printf "%.1f", b - a }')"
	printf -v "${prefix}_CLIENT_$label" '%s' "$(cpu_of "$DIR/$base.time")"
	grep -q '"type":"summary".*"status":"ok"' "$DIR/$base.jsonl" ||
		{ tail -20 "$DIR/$base.log" >&2; die "ilmctl's $base run did not end ok (see $DIR/$base.jsonl)"; }
}

# ilm_pass LABEL: one ilmctl pass on B; its actions go to
# $DIR/ilmctl-LABEL.jsonl for the floor. Sets ILM_SECS_LABEL,
# ILM_CLIENT_LABEL, ILM_SERVER_LABEL and ILM_LOAD_LABEL.
ilm_pass() {
	local label=$1 v prof=-
	[ "$PROFILE" = 1 ] && prof="$DIR/ilmctl-$label.pprof"
	release b
	ilmctl_run b ILM "$label" "ilmctl-$label" "$prof"
	v="ILM_SECS_$label"
	log "B ($label): ilmctl pass took ${!v}s"
	hold b
}

# dry_run_of LABEL: the LABEL pass again with --dry-run, on server C
# started on the data that pass began from: its reads and decisions
# without a delete or a write. Sets DRY_SECS_LABEL, DRY_CLIENT_LABEL and
# DRY_SERVER_LABEL; its RPCs go to $DIR/dry-LABEL.log. Writing nothing,
# it leaves C as the floor needs it. Only the cold pass has one: C's
# filer is a process the daily pass's cursors do not know, so a daily dry
# run there would walk every rule
# (docs/design/daily-run.md#filer-restarts), which the daily pass did not.
dry_run_of() {
	ilmctl_run c DRY "$1" "dry-$1" - --dry-run
}

# floor_of LABEL SNAPSHOT: server C started on SNAPSHOT (the data the
# pass began from), and scripts/floor sending it the LifecycleDelete calls
# of $DIR/ilmctl-LABEL.jsonl and nothing else. Sets FLOOR_LABEL (client +
# server CPU), FLOOR_CLIENT_LABEL, FLOOR_SERVER_LABEL, FLOOR_SECS_LABEL,
# FLOOR_CALLS_LABEL and FLOOR_DIFF_LABEL.
floor_of() {
	local label=$1 snapshot=$2 out
	srv c reset
	mkdir -p "$DIR/server-c"
	mv "$snapshot" "$DIR/server-c/data"
	srv c start
	[ "$label" != cold ] || dry_run_of cold
	log "C ($label floor): the $label pass's LifecycleDelete calls alone (load average $(loadavg))"
	out=$("$FLOOR" -filer "127.0.0.1:$C_FILER" -s3-grpc "127.0.0.1:$((C_S3 + 10000))" \
		-server-pid "$(cat "$DIR/server-c/weed.pid")" "$DIR/ilmctl-$label.jsonl" 2>"$DIR/floor-$label.log") ||
		{ tail -5 "$DIR/floor-$label.log" >&2; die "the $label floor failed (see $DIR/floor-$label.log)"; }
	echo "$out" >>"$DIR/floor-$label.log"
	kv() { tr ' ' '\n' <<<"$out" | sed -n "s/^$1=//p"; }
	[ "$(kv unresolved)" = 0 ] || die "the $label floor found $(kv unresolved) targets missing from its snapshot (see $DIR/floor-$label.log)"
	printf -v "FLOOR_CALLS_$label" '%s' "$(kv calls)"
	printf -v "FLOOR_DIFF_$label" '%s' "$(kv differing)"
	printf -v "FLOOR_SECS_$label" '%s' "$(kv wall_s)"
	printf -v "FLOOR_CLIENT_$label" '%s' "$(kv client_cpu_s)"
	printf -v "FLOOR_SERVER_$label" '%s' "$(kv server_cpu_s)"
	printf -v "FLOOR_$label" '%s' "$(awk -v a="$(kv client_cpu_s)" -v b="$(kv server_cpu_s)" 'BEGIN { printf "%.2f", a + b }')"
	srv c reset
}

# list_both LABEL: both servers listed into $DIR/LABEL-a.txt and
# $DIR/LABEL-b.txt, each released for it and held after.
list_both() {
	release a
	release b
	"$SEED" list -s3 "127.0.0.1:$A_S3" -scale "$SCALE" >"$DIR/$1-a.txt" || die "listing A failed"
	"$SEED" list -s3 "127.0.0.1:$B_S3" -scale "$SCALE" >"$DIR/$1-b.txt" || die "listing B failed"
	hold a
	hold b
}

# Phase 1: the cold pass of each.
sw_pass cold
ilm_pass cold

release a
release b
"$SEED" list -s3 "127.0.0.1:$A_S3" -scale "$SCALE" >"$DIR/after-a.txt" || die "listing A failed"
"$SEED" list -s3 "127.0.0.1:$B_S3" -scale "$SCALE" >"$DIR/after-b.txt" || die "listing B failed"
LEFT=$(wc -l <"$DIR/after-a.txt")
if ! cmp -s "$DIR/after-a.txt" "$DIR/after-b.txt"; then
	diff "$DIR/after-a.txt" "$DIR/after-b.txt" >"$DIR/after.diff" || true
	echo "bench: --- left by SeaweedFS (A)  +++ left by ilmctl (B), first differences:" >&2
	diff -u "$DIR/after-a.txt" "$DIR/after-b.txt" | sed -n '3,40p' >&2 || true
	die "SeaweedFS and ilmctl left different sets ($(grep -c '^<' "$DIR/after.diff" || true) only in A, $(grep -c '^>' "$DIR/after.diff" || true) only in B; $DIR/after.diff)"
fi
# Versions by identity (bucket/key and ETag, or DM), ignoring latest=.
ident() { sed 's/ latest=.*//' "$1" | LC_ALL=C sort; }
REMOVED=$(LC_ALL=C comm -23 <(ident "$DIR/before-a.txt") <(ident "$DIR/after-a.txt") | wc -l)
ADDED=$(LC_ALL=C comm -13 <(ident "$DIR/before-a.txt") <(ident "$DIR/after-a.txt") | wc -l)
[ "$REMOVED" -gt 0 ] || die "neither pass removed anything; the dataset was not due"

# Phase 2: the day's churn on both servers at the same times, then a
# daily pass of each from the cursors its cold pass saved.
log "churn: 1 % of the keys overwritten, deleted or retagged on A and B at the same times"
"$SEED" churn -s3 "127.0.0.1:$A_S3" -s3-b "127.0.0.1:$B_S3" -scale "$SCALE" 2>"$DIR/churn.log" ||
	{ tail -5 "$DIR/churn.log" >&2; die "churn failed (see $DIR/churn.log)"; }
CHURN=$(tail -1 "$DIR/churn.log" | sed 's/^benchseed: churn on 2 servers: //')
log "churn: $CHURN"
"$SEED" list -s3 "127.0.0.1:$A_S3" -scale "$SCALE" >"$DIR/churned-a.txt" || die "listing A failed"
"$SEED" list -s3 "127.0.0.1:$B_S3" -scale "$SCALE" >"$DIR/churned-b.txt" || die "listing B failed"
cmp -s "$DIR/churned-a.txt" "$DIR/churned-b.txt" ||
	{ diff "$DIR/churned-a.txt" "$DIR/churned-b.txt" | head -20 >&2; die "the two servers hold different sets after the churn"; }
hold a
hold b
# B's data as the held process left it on disk, as after a crash: the
# floor's server C replays nothing from its meta-log.
rm -rf "$DIR/floor-daily"
cp -a "$DIR/server-b/data" "$DIR/floor-daily"

sw_pass daily
ilm_pass daily
list_both daily

# Phase 3: two quiet days. Two more passes of each with no churn before
# them: what a daily pass costs once the cold pass's own deletes have been
# replayed, and with nothing new. Each day's sets are compared as the
# daily pass's are.
QUIET_DAYS="quiet1 quiet2"
prev=daily
for label in $QUIET_DAYS; do
	sw_pass "$label"
	ilm_pass "$label"
	list_both "$label"
	printf -v "CHANGED_A_$label" '%s' "$(LC_ALL=C comm -3 <(ident "$DIR/$prev-a.txt") <(ident "$DIR/$label-a.txt") | wc -l)"
	printf -v "CHANGED_B_$label" '%s' "$(LC_ALL=C comm -3 <(ident "$DIR/$prev-b.txt") <(ident "$DIR/$label-b.txt") | wc -l)"
	out=$("$SEED" compare -scale "$SCALE" "$DIR/$label-a.txt" "$DIR/$label-b.txt") ||
		die "after the $label passes SeaweedFS (A) and ilmctl (B) left sets that differ beyond the named differences ($DIR/$label-a.txt, $DIR/$label-b.txt)"
	printf -v "CMP_$label" '%s' "$out"
	prev=$label
done
DAILY_LEFT=$(wc -l <"$DIR/daily-b.txt")
DAILY_REMOVED=$(LC_ALL=C comm -23 <(ident "$DIR/churned-b.txt") <(ident "$DIR/daily-b.txt") | wc -l)
DAILY_ADDED=$(LC_ALL=C comm -13 <(ident "$DIR/churned-b.txt") <(ident "$DIR/daily-b.txt") | wc -l)
# The named differences are reported, never copied or hidden: compare
# counts each and fails on any other.
CMP=$("$SEED" compare -scale "$SCALE" "$DIR/daily-a.txt" "$DIR/daily-b.txt") ||
	die "after the daily passes SeaweedFS (A) and ilmctl (B) left sets that differ beyond the named differences ($DIR/daily-a.txt, $DIR/daily-b.txt)"
# named NAME [LABEL]: the count of a named difference after the daily
# passes, or after the LABEL passes.
named() {
	local v=CMP
	[ -z "${2:-}" ] || v="CMP_$2"
	tr ' ' '\n' <<<"${!v}" | sed -n "s/^$1=//p"
}

floor_of cold "$DIR/floor-cold"
floor_of daily "$DIR/floor-daily"

if [ "$PROFILE" = 1 ]; then
	for label in cold daily $QUIET_DAYS; do
		log "ilmctl $label CPU profile: $DIR/ilmctl-$label.pprof (go tool pprof -top $DIR/bin/benchseed $DIR/ilmctl-$label.pprof)"
		go tool pprof -top -nodecount=25 "$SEED" "$DIR/ilmctl-$label.pprof" 2>/dev/null | sed -n '1,32p' >&2 || true
	done
fi

SW_CPU_cold=$(total "$SW_CLIENT_cold" "$SW_SERVER_cold")
SW_CPU_daily=$(total "$SW_CLIENT_daily" "$SW_SERVER_daily")
ILM_CPU_cold=$(total "$ILM_CLIENT_cold" "$ILM_SERVER_cold")
ILM_CPU_daily=$(total "$ILM_CLIENT_daily" "$ILM_SERVER_daily")
SW_DAYS=$SW_CPU_daily
ILM_DAYS=$ILM_CPU_daily
for label in $QUIET_DAYS; do
	printf -v "SW_CPU_$label" '%s' "$(total "$(get "SW_CLIENT_$label")" "$(get "SW_SERVER_$label")")"
	printf -v "ILM_CPU_$label" '%s' "$(total "$(get "ILM_CLIENT_$label")" "$(get "ILM_SERVER_$label")")"
	SW_DAYS=$(total "$SW_DAYS" "$(get "SW_CPU_$label")")
	ILM_DAYS=$(total "$ILM_DAYS" "$(get "ILM_CPU_$label")")
done
# quiet_report LABEL: what one quiet day printed, as the daily pass's.
quiet_report() {
	local l=$1
	cat <<REPORT
$l:    no churn; versions changed since the day before:
           $(get "CHANGED_A_$l") by SeaweedFS's worker, $(get "CHANGED_B_$l") by ilmctl; where the worker
           parts from AWS: $(named newer_kept "$l") bench-newer keys with a third noncurrent
           version kept, $(named newer_removed "$l") with the second-newest removed, $(named tag_kept "$l")
           retagged bench-tags objects kept
seaweedfs: $(get "SW_SECS_$l")s  cpu: weed shell $(get "SW_CLIENT_$l")s, weed server $(get "SW_SERVER_$l")s
           load average at start $(get "SW_LOAD_$l")
           RPCs (to the filer and the S3 gateway):
$(rpcs "$DIR/seaweedfs-$l-filer.rpc" "$DIR/seaweedfs-$l-s3.rpc")
ilmctl:    $(get "ILM_SECS_$l")s  cpu: ilmctl $(get "ILM_CLIENT_$l")s, weed server $(get "ILM_SERVER_$l")s
           load average at start $(get "ILM_LOAD_$l")
           RPCs:
$(rpcs "$DIR/ilmctl-$l.log")
floor:     not measured on a quiet day ($(get "CHANGED_B_$l") versions changed by ilmctl's pass)
ratios:    $(ratio "$(get "ILM_CPU_$l")" "$(get "SW_CPU_$l")")  ilmctl / seaweedfs, client + server CPU

REPORT
}
# rest LABEL: the LABEL pass's client + server CPU less its floor's and
# its dry run's, from the unrounded parts.
rest() {
	awk -v a="$(get "ILM_CLIENT_$1")" -v b="$(get "ILM_SERVER_$1")" -v c="$(get "FLOOR_CLIENT_$1")" \
		-v d="$(get "FLOOR_SERVER_$1")" -v e="$(get "DRY_CLIENT_$1")" -v f="$(get "DRY_SERVER_$1")" \
		'BEGIN { printf "%.1f", a + b - c - d - e - f }'
}
# fine LABEL: a note when that floor is a few of /proc's 10 ms CPU ticks.
fine() {
	local v="FLOOR_$1"
	awk -v f="${!v}" 'BEGIN { if (f < 0.5) print "           (a floor under 0.5 CPU-seconds is a few 10 ms ticks: its ratios say little)" }'
}
# rpcs FILE...: gRPC calls by method (calls, summed wait seconds) from
# the rpcStats tables of benchseed profile-run or rpc-proxy.
rpcs() {
	sed -n '/^rpc  /,/^ilmctl process/p' "$@" | grep -v '^rpc  \|^ilmctl process' |
		awk '{ printf "             %-24s %8s calls %9s s waited\n", $1, $2, $4 }'
}
cat <<EOF
dataset:   $n versions, delete markers and uploads in 8 buckets (scale $SCALE)
machine:   $(nproc) cores, $(uname -m)

cold pass: $REMOVED removed, $ADDED delete markers added, $LEFT left, identical on both
seaweedfs: ${SW_SECS_cold}s  cpu: weed shell ${SW_CLIENT_cold}s, weed server ${SW_SERVER_cold}s
           load average at start ${SW_LOAD_cold}
           RPCs (to the filer and the S3 gateway):
$(rpcs "$DIR/seaweedfs-cold-filer.rpc" "$DIR/seaweedfs-cold-s3.rpc")
ilmctl:    ${ILM_SECS_cold}s  cpu: ilmctl ${ILM_CLIENT_cold}s, weed server ${ILM_SERVER_cold}s
           load average at start ${ILM_LOAD_cold}
           RPCs:
$(rpcs "$DIR/ilmctl-cold.log")
dry run:   ${DRY_SECS_cold}s  cpu: ilmctl ${DRY_CLIENT_cold}s, weed server ${DRY_SERVER_cold}s
           (the same pass with --dry-run on its starting data: reads and
           decisions, no deletes)
           RPCs:
$(rpcs "$DIR/dry-cold.log")
floor:     ${FLOOR_SECS_cold}s  cpu: floor ${FLOOR_CLIENT_cold}s, weed server ${FLOOR_SERVER_cold}s
           ($FLOOR_CALLS_cold LifecycleDelete calls; $FLOOR_DIFF_cold outcomes unlike the pass's)
rest:      $(rest cold) CPU-s = pass - floor - dry run: the re-read before each delete,
           the meta-log events of the pass's own deletes, and dispatching
ratios:    $(ratio "$ILM_SECS_cold" "$SW_SECS_cold")  ilmctl / seaweedfs, wall time (goal <= 0.30)
           $(ratio "$ILM_CPU_cold" "$FLOOR_cold")  ilmctl / floor, client + server CPU (goal <= 1.30)
           $(ratio "$SW_CPU_cold" "$FLOOR_cold")  seaweedfs / floor, client + server CPU
$(fine cold)

churn:     $CHURN
daily:     $DAILY_REMOVED removed, $DAILY_ADDED delete markers added, $DAILY_LEFT left by ilmctl;
           the same on both but for keys where SeaweedFS's worker parts
           from AWS (ilmctl leaves what AWS leaves):
           $(named newer_kept) bench-newer keys: it kept a third noncurrent version
             (NewerNoncurrentVersions 2 keeps the two newest)
           $(named newer_removed) bench-newer keys: it removed the second-newest
             noncurrent version (one of the two newest)
           $(named tag_kept) bench-tags objects: it kept an aged object retagged
             expire=yes (the rule sees the tags as they are now)
seaweedfs: ${SW_SECS_daily}s  cpu: weed shell ${SW_CLIENT_daily}s, weed server ${SW_SERVER_daily}s
           load average at start ${SW_LOAD_daily}
           RPCs (to the filer and the S3 gateway):
$(rpcs "$DIR/seaweedfs-daily-filer.rpc" "$DIR/seaweedfs-daily-s3.rpc")
ilmctl:    ${ILM_SECS_daily}s  cpu: ilmctl ${ILM_CLIENT_daily}s, weed server ${ILM_SERVER_daily}s
           load average at start ${ILM_LOAD_daily}
           RPCs:
$(rpcs "$DIR/ilmctl-daily.log")
floor:     ${FLOOR_SECS_daily}s  cpu: floor ${FLOOR_CLIENT_daily}s, weed server ${FLOOR_SERVER_daily}s
           ($FLOOR_CALLS_daily LifecycleDelete calls; $FLOOR_DIFF_daily outcomes unlike the pass's)
ratios:    $(ratio "$ILM_CPU_daily" "$SW_CPU_daily")  ilmctl / seaweedfs, client + server CPU (goal <= 0.20)
           $(ratio "$ILM_CPU_daily" "$FLOOR_daily")  ilmctl / floor, client + server CPU (goal <= 1.50)
           $(ratio "$SW_CPU_daily" "$FLOOR_daily")  seaweedfs / floor, client + server CPU
$(fine daily)

EOF
for label in $QUIET_DAYS; do
	quiet_report "$label"
done
cat <<EOF
the days:  the daily pass and the quiet days together, client + server CPU:
           SeaweedFS's worker ${SW_DAYS}s, ilmctl ${ILM_DAYS}s
ratios:    $(ratio "$ILM_DAYS" "$SW_DAYS")  ilmctl / seaweedfs, the three days together
EOF
