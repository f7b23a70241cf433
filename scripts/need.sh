# scripts/need.sh — sourced by the bench scripts: need CMD PACKAGE...
# makes sure each CMD is on PATH, installing its Debian PACKAGE with
# apt-get when it is not (as .ci/run installs promtool), so a script runs
# on a machine that has only Go. Without apt-get or root it stops and
# names the package to install.
need() {
	local missing=() pkgs=() cmd
	while [ $# -ge 2 ]; do
		if ! command -v "$1" >/dev/null 2>&1; then
			missing+=("$1")
			pkgs+=("$2")
		fi
		shift 2
	done
	[ ${#pkgs[@]} -eq 0 ] && return 0
	echo "need: installing ${pkgs[*]} (Debian) for ${missing[*]}" >&2
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 &&
		{ DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
			DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${pkgs[@]}" >/dev/null; }; then
		for cmd in "${missing[@]}"; do
			command -v "$cmd" >/dev/null 2>&1 && continue
			echo "need: $cmd is still missing after apt-get install ${pkgs[*]}" >&2
			return 1
		done
		return 0
	fi
	echo "need: ${missing[*]} missing: install ${pkgs[*]} (apt-get install --no-install-recommends ${pkgs[*]}, as root) and run again" >&2
	return 1
}
