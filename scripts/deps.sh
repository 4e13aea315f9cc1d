#!/usr/bin/env bash
# deps.sh: make sure this Debian machine has what kwarm needs to build, to run
# its tests and its benchmark. Installs what is missing when it can (root, or
# sudo without a password); otherwise stops and prints the exact apt-get line.
#
#   scripts/deps.sh            build, tests and benchmark (the default)
#   scripts/deps.sh --build    only what building kwarm needs
#   scripts/deps.sh --check    install nothing: exit 1 listing what is missing
set -euo pipefail

build=(build-essential cmake make pkg-config libyaml-dev libssl-dev libelf-dev liburing-dev binutils libcurl4-openssl-dev)
tests=(python3 git distcc ccache ninja-build groff-base clang libclang-rt-14-dev nginx-light strace)

mode=all
case "${1:-}" in
	"") ;;
	--build) mode=build ;;
	--check) mode=check ;;
	-h|--help) sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "deps.sh: unknown option '$1' (try --help)" >&2; exit 2 ;;
esac

want=("${build[@]}")
[ "$mode" = build ] || want+=("${tests[@]}")

missing=()
for p in "${want[@]}"; do
	status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	[ "$status" = "install ok installed" ] || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

line="apt-get install -y ${missing[*]}"
if [ "$mode" = check ]; then
	echo "deps.sh: missing Debian packages; run as root: apt-get update && $line" >&2
	exit 1
fi
if [ "$(id -u)" -eq 0 ]; then
	sudo=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
	sudo=(sudo -n)
else
	echo "deps.sh: missing Debian packages: ${missing[*]}" >&2
	echo "deps.sh: run as root: apt-get update && $line" >&2
	exit 1
fi
echo "deps.sh: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -q >&2
"${sudo[@]}" apt-get install -y -q "${missing[@]}" >&2
