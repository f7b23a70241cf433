#!/usr/bin/env bash
# scripts/bench-vs-seaweedfs.sh — ilmctl run against SeaweedFS's own
# lifecycle worker, side by side on one dataset (docs/benchmarks.md).
#
# 1. Builds ilmctl and scripts/benchseed, and weed (scripts/seaweedfs.sh
#    install; cached after the first time).
# 2. Starts two fresh SeaweedFS servers on loopback with non-default ports
#    (A and B below; the default 8888/8333 instance is never touched).
# 3. Seeds A with a deterministic dataset (benchseed seed: about 121k
#    versions, delete markers and uploads times BENCH_SCALE, over 8 buckets
#    and 10 rules — Expiration Days on versioned and unversioned buckets,
#    NoncurrentDays, NewerNoncurrentVersions, a tag filter,
#    ExpiredObjectDeleteMarker, AbortIncompleteMultipartUpload — with the
#    due part backdated through the filer), copies A's stopped data
#    directory to B (seeding is most of the script's time; the copy halves
#    it and gives B the same meta-log), and checks that the two servers list
#    the same thing.
# 4. Times one pass of each, alone on the machine (the other server is
#    stopped while one is measured; both restarted the same way):
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
#
# Environment (defaults):
#   BENCH_SCALE=1          dataset multiplier (1 = 121k versions; 4 = 484k,
#                          whose seeding alone takes 30-50 minutes on 2 cores)
#   BENCH_DIR=/tmp/ilmctl-bench   binaries, listings, logs, profiles, and
#                          both servers' state (server-a/, server-b/)
#   BENCH_PROFILE=0        1 = run ilmctl under benchseed profile-run and
#                          print the top of its CPU profile and its gRPC
#                          calls by method (slightly slower)
#   BENCH_KEEP=0           1 = leave both servers' data dirs for inspection
#   BENCH_A_PORTS=9433,8180,8988,8433  master,volume,filer,s3 of server A
#   BENCH_B_PORTS=9533,8280,9088,8533  master,volume,filer,s3 of server B
#   (gRPC ports are each +10000.) Two runs at once need different
#   BENCH_DIR and ports.
#
# Exit status: 0 both left the same set; 1 setup or a pass failed, or the
# sets differ. The ratio goal is reported, not enforced.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SW="$ROOT/scripts/seaweedfs.sh"
SCALE=${BENCH_SCALE:-1}
DIR=${BENCH_DIR:-/tmp/ilmctl-bench}
PROFILE=${BENCH_PROFILE:-0}
KEEP=${BENCH_KEEP:-0}
IFS=, read -r A_MASTER A_VOLUME A_FILER A_S3 <<<"${BENCH_A_PORTS:-9433,8180,8988,8433}"
IFS=, read -r B_MASTER B_VOLUME B_FILER B_S3 <<<"${BENCH_B_PORTS:-9533,8280,9088,8533}"

log() { echo "bench: $*" >&2; }
die() {
	echo "bench: FAIL: $*" >&2
	exit 1
}

for p in "$A_MASTER" "$A_VOLUME" "$A_FILER" "$A_S3" "$B_MASTER" "$B_VOLUME" "$B_FILER" "$B_S3"; do
	case "$p" in
	9333 | 8080 | 8888 | 8333) die "port $p belongs to the default scripts/seaweedfs.sh instance; pick other BENCH_*_PORTS" ;;
	'' | *[!0-9]*) die "bad port '$p' in BENCH_A_PORTS/BENCH_B_PORTS" ;;
	esac
done

# srv a|b <seaweedfs.sh command>: scripts/seaweedfs.sh for server A or B.
# B runs on a copy of A's data directory under other ports, so its master
# sees a volume server whose topology ID it did not issue, and by default
# freezes volume growth ("volume growth is frozen after master state
# loss"): once the copied volumes fill, the filer cannot write its
# meta-log and every LifecycleDelete waits. Both servers are this
# script's own copies, so the check is off
# (master.volume_growth.freeze_on_topology_mismatch, as an environment
# variable).
srv() {
	local which=$1
	shift
	export WEED_MASTER_VOLUME_GROWTH_FREEZE_ON_TOPOLOGY_MISMATCH=false
	if [ "$which" = a ]; then
		SEAWEEDFS_STATE="$DIR/server-a" WEED_MASTER_PORT=$A_MASTER WEED_VOLUME_PORT=$A_VOLUME \
			WEED_FILER_PORT=$A_FILER WEED_S3_PORT=$A_S3 "$SW" "$@"
	else
		SEAWEEDFS_STATE="$DIR/server-b" WEED_MASTER_PORT=$B_MASTER WEED_VOLUME_PORT=$B_VOLUME \
			WEED_FILER_PORT=$B_FILER WEED_S3_PORT=$B_S3 "$SW" "$@"
	fi
}

STARTED=0
cleanup() {
	local rc=$?
	if [ "$STARTED" = 1 ]; then
		if [ "$KEEP" = 1 ]; then
			srv a stop || true
			srv b stop || true
			log "kept $DIR/server-a and $DIR/server-b (BENCH_KEEP=1)"
		else
			srv a reset || true
			srv b reset || true
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

mkdir -p "$DIR/bin"
log "building ilmctl and benchseed into $DIR/bin"
(cd "$ROOT" && go build -o "$DIR/bin/ilmctl" ./cmd/ilmctl && go build -o "$DIR/bin/benchseed" ./scripts/benchseed) ||
	die "build failed"
WEED=$("$SW" install)
[ -x "$WEED" ] || die "no weed binary from scripts/seaweedfs.sh install"
SEED="$DIR/bin/benchseed"

log "fresh servers: A (SeaweedFS worker) filer :$A_FILER s3 :$A_S3; B (ilmctl) filer :$B_FILER s3 :$B_S3"
STARTED=1
srv a reset
srv b reset
srv a start

VERSIONS=$("$SEED" count -scale "$SCALE")
# Each server needs about 4 KiB of disk per version (volumes, filer store,
# meta-log); refuse early rather than fail half-way through seeding.
need_kb=$((VERSIONS * 4 * 2 + 1024 * 1024))
avail_kb=$(df -Pk "$DIR" | awk 'NR == 2 { print $4 }')
[ "$avail_kb" -ge "$need_kb" ] || die "$DIR has $((avail_kb / 1024)) MiB free, the two servers need about $((need_kb / 1024)) MiB at scale $SCALE"
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

# Measure each pass alone: both servers stopped, then each one started,
# measured and stopped in turn (a restart flushes nothing the pass needs:
# the meta-log and entries are on disk).
srv a stop
srv b stop

srv a start
log "A: weed shell s3.lifecycle.run-shard -shards 0-15 -events 0 (load average $(loadavg))"
SW_LOAD=$(loadavg)
c0=$(weed_cpu a)
t0=$(now)
{ time printf 's3.lifecycle.run-shard -shards 0-15 -s3 127.0.0.1:%s -events 0\nexit\n' "$((A_S3 + 10000))" |
	"$WEED" shell -master="127.0.0.1:$A_MASTER" -filer="127.0.0.1:$A_FILER" >"$DIR/seaweedfs-pass.log" 2>&1; } 2>"$DIR/seaweedfs-pass.time" ||
	{ tail -20 "$DIR/seaweedfs-pass.log" >&2; die "weed shell failed (see $DIR/seaweedfs-pass.log)"; }
t1=$(now)
SW_SECS=$(elapsed "$t0" "$t1")
SW_SERVER_CPU=$(awk -v a="$c0" -v b="$(weed_cpu a)" 'BEGIN { printf "%.1f", b - a }')
SW_CLIENT_CPU=$(cpu_of "$DIR/seaweedfs-pass.time")
grep -q 'complete; cursors checkpointed' "$DIR/seaweedfs-pass.log" ||
	{ tail -20 "$DIR/seaweedfs-pass.log" >&2; die "run-shard did not finish its pass (see $DIR/seaweedfs-pass.log)"; }
if grep -qiE '^(> )?error|daily_run: status=error' "$DIR/seaweedfs-pass.log"; then
	tail -20 "$DIR/seaweedfs-pass.log" >&2
	die "run-shard reported an error (see $DIR/seaweedfs-pass.log)"
fi
log "A: SeaweedFS pass took ${SW_SECS}s"
srv a stop

srv b start
ILM_ARGS=(--filer "seaweedfs://127.0.0.1:$B_FILER" --s3-grpc "127.0.0.1:$((B_S3 + 10000))" --due-rounding exact --expired-marker-days keep --runtime 60m -o json)
log "B: ilmctl run ${ILM_ARGS[*]} (load average $(loadavg))"
ILM_LOAD=$(loadavg)
c0=$(weed_cpu b)
t0=$(now)
if [ "$PROFILE" = 1 ]; then
	{ time "$SEED" profile-run "$DIR/ilmctl-cpu.pprof" "${ILM_ARGS[@]}" >"$DIR/ilmctl-report.json" 2>"$DIR/ilmctl-pass.log"; } 2>"$DIR/ilmctl-pass.time" ||
		{ tail -20 "$DIR/ilmctl-pass.log" >&2; die "ilmctl run failed (see $DIR/ilmctl-pass.log)"; }
else
	{ time "$DIR/bin/ilmctl" run "${ILM_ARGS[@]}" >"$DIR/ilmctl-report.json" 2>"$DIR/ilmctl-pass.log"; } 2>"$DIR/ilmctl-pass.time" ||
		{ tail -20 "$DIR/ilmctl-pass.log" >&2; die "ilmctl run failed (see $DIR/ilmctl-pass.log)"; }
fi
t1=$(now)
ILM_SECS=$(elapsed "$t0" "$t1")
ILM_SERVER_CPU=$(awk -v a="$c0" -v b="$(weed_cpu b)" 'BEGIN { printf "%.1f", b - a }')
ILM_CLIENT_CPU=$(cpu_of "$DIR/ilmctl-pass.time")
log "B: ilmctl pass took ${ILM_SECS}s"

srv a start
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

if [ "$PROFILE" = 1 ]; then
	log "ilmctl CPU profile: $DIR/ilmctl-cpu.pprof (go tool pprof -top $DIR/bin/benchseed $DIR/ilmctl-cpu.pprof)"
	go tool pprof -top -nodecount=25 "$SEED" "$DIR/ilmctl-cpu.pprof" 2>/dev/null | sed -n '1,32p' >&2 || true
	log "ilmctl gRPC calls (wait_s sums concurrent calls; max_fly is the most at once):"
	sed -n '/^rpc  /,$p' "$DIR/ilmctl-pass.log" >&2
fi

RATIO=$(awk -v a="$ILM_SECS" -v b="$SW_SECS" 'BEGIN { printf "%.2f", a / b }')
cat <<EOF
dataset:   $n versions, delete markers and uploads in 8 buckets
result:    $REMOVED removed, $ADDED delete markers added, $LEFT left — identical on both servers
machine:   $(nproc) cores, $(uname -m)
seaweedfs: ${SW_SECS}s  (weed shell s3.lifecycle.run-shard -shards 0-15 -events 0)
           cpu: weed shell ${SW_CLIENT_CPU}s, weed server ${SW_SERVER_CPU}s; load average at start ${SW_LOAD}
ilmctl:    ${ILM_SECS}s  (ilmctl run --due-rounding exact --expired-marker-days keep)
           cpu: ilmctl ${ILM_CLIENT_CPU}s, weed server ${ILM_SERVER_CPU}s; load average at start ${ILM_LOAD}
ratio:     ${RATIO}  (ilmctl / seaweedfs wall time; goal <= 0.30)
EOF
