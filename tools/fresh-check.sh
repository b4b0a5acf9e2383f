#!/bin/sh
# Proves the README's set-up on a freshly bootstrapped Debian 12: a minbase
# chroot from the mirror the host's apt uses, a clean clone of this project in
# it, and the README's two commands run there with the host's environment
# cleared (env -i; only PATH and HOME, as a root login has them). With --ci,
# `CI=true bash .ci/run` runs there too.
#
#   sh tools/fresh-check.sh [--ci]       (root; make check-fresh)
#
# What it copies in is `git clone` of HEAD: only what is committed. With
# GPUTRACE_FRESH_SRC=worktree it copies the working tree instead (tracked and
# untracked files that git does not ignore), to try a change before it is
# committed.
#
# The bootstrapped minbase is kept as a tarball in $GPUTRACE_FRESH_CACHE
# (default /var/cache/gputrace-fresh), with the .deb files apt downloads, so
# that a later run skips debootstrap and the downloads; every run still starts
# from the bare minbase and installs the dependencies with
# tools/install-deps.sh, so a change to that script is always tried fresh.
# GPUTRACE_FRESH_REBOOTSTRAP=1 throws the cached tarball away first.
#
# It skips (exit 0, with a line that starts "fresh-check: SKIPPED") only where
# it cannot run: not root, no debootstrap, no chroot or mount allowed, or
# inside a chroot it made itself (no nesting). Any other failure is exit 1.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
cache=${GPUTRACE_FRESH_CACHE:-/var/cache/gputrace-fresh}
suite=bookworm
with_ci=0
case "${1:-}" in
--ci) with_ci=1 ;;
"") ;;
*) echo "usage: sh tools/fresh-check.sh [--ci]" >&2; exit 2 ;;
esac

say() { echo "fresh-check: $*"; }
skip() { say "SKIPPED: $*"; exit 0; }
fail() { say "FAILED: $*"; exit 1; }

[ ! -e /.gputrace-fresh ] || skip "this is already a fresh chroot of fresh-check (no nesting)"
[ "$(id -u)" -eq 0 ] || skip "needs root (debootstrap, chroot, mount)"
command -v debootstrap >/dev/null 2>&1 || skip "debootstrap is not installed (apt-get install debootstrap)"
chroot / true 2>/dev/null || skip "chroot is not allowed here"

# The Debian mirror and security archive the host's apt already uses.
mirror="" security=""
targets=$(apt-get indextargets --format '$(REPO_URI) $(RELEASE)' 'Created-By: Packages' 2>/dev/null | sort -u || true)
mirror=$(echo "$targets" | awk -v s="$suite" '$2 == s { print $1; exit }')
security=$(echo "$targets" | awk -v s="$suite-security" '$2 == s { print $1; exit }')
[ -n "$mirror" ] || mirror=http://deb.debian.org/debian/

work=$(mktemp -d /var/tmp/gputrace-fresh.XXXXXX)
root=$work/root
logs=${GPUTRACE_FRESH_LOGS:-$work/logs}
mkdir -p "$root" "$logs" "$cache/archives"

# Unmounts everything under the chroot, deepest first, and removes the work
# folder only when nothing is mounted there any more.
cleanup() {
	set +e
	for m in $(awk -v r="$root" 'index($2, r "/") == 1 { print $2 }' /proc/mounts | sort -r); do
		umount "$m" 2>/dev/null || umount -l "$m"
	done
	if awk -v r="$root" 'index($2, r "/") == 1 { found = 1 } END { exit !found }' /proc/mounts; then
		say "left $work in place: something is still mounted under it"
	elif [ "$logs" = "$work/logs" ] && [ "${keep_logs:-0}" = 1 ]; then
		rm -rf "$root"
		say "logs kept in $logs"
	else
		rm -rf "$work"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

tarball=$cache/$suite-minbase.tar
[ "${GPUTRACE_FRESH_REBOOTSTRAP:-0}" = 1 ] && rm -f "$tarball"
if [ ! -s "$tarball" ]; then
	say "bootstrapping a minimal Debian $suite from $mirror"
	t0=$(date +%s)
	if ! debootstrap --variant=minbase "$suite" "$root" "$mirror" >"$logs/debootstrap.log" 2>&1; then
		tail -n 20 "$logs/debootstrap.log"
		keep_logs=1
		fail "debootstrap failed (log: $logs/debootstrap.log)"
	fi
	tar -C "$root" -cf "$tarball.tmp" . && mv "$tarball.tmp" "$tarball"
	say "bootstrapped in $(($(date +%s) - t0)) s; cached as $tarball"
else
	say "starting from the cached minbase $tarball"
	tar -C "$root" -xf "$tarball"
fi

# The chroot's apt: the host's Debian archives, its name server.
{
	echo "deb $mirror $suite main"
	echo "deb $mirror $suite-updates main"
	[ -z "$security" ] || echo "deb $security $suite-security main"
} >"$root/etc/apt/sources.list"
cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
touch "$root/.gputrace-fresh"

mkdir -p "$root/src"
case "${GPUTRACE_FRESH_SRC:-clone}" in
worktree)
	say "copying the working tree of $top"
	mkdir -p "$root/src/gputrace"
	(cd "$top" && git ls-files -z -co --exclude-standard | xargs -0 tar -cf - --no-recursion) |
		tar -C "$root/src/gputrace" -xf -
	;;
*)
	say "cloning $(git -C "$top" rev-parse --short HEAD) of $top"
	git clone -q --no-hardlinks "$top" "$root/src/gputrace"
	;;
esac

mount -t proc proc "$root/proc" || skip "mount is not allowed here"
mount -t sysfs sysfs "$root/sys"
mount --bind /dev "$root/dev"
mount --bind /dev/pts "$root/dev/pts"
mount -t tmpfs -o mode=1777 tmpfs "$root/dev/shm"
mount --bind "$cache/archives" "$root/var/cache/apt/archives"

# Runs one command in the clone, in the chroot, with nothing of the host's
# environment; prints its output and its wall time. $1: log name.
in_chroot() {
	name=$1
	shift
	t0=$(date +%s)
	set +e
	chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		/bin/sh -c "cd /src/gputrace && $*" >"$logs/$name.log" 2>&1
	rc=$?
	set -e
	secs=$(($(date +%s) - t0))
	say "$name: exit $rc in $secs s: $*"
	return $rc
}

status=0
# The main job: on a machine without a GPU a step fails and make says so
# (exit 2), after the doctor printed its steps and its diagnosis.
in_chroot doctor 'sh tools/install-deps.sh && make doctor' || true
sed -n '/^gputrace doctor: the GPU chain/,/^the first layer that fails/p' "$logs/doctor.log"
if ! grep -q '^gputrace doctor: the GPU chain, layer by layer' "$logs/doctor.log" ||
	! grep -qE '^(the first layer that fails: |all steps ran\.)' "$logs/doctor.log"; then
	say "make doctor did not print the doctor's steps and diagnosis"
	status=1
fi
if ! in_chroot check 'sh tools/install-deps.sh && make check'; then
	tail -n 60 "$logs/check.log"
	status=1
else
	grep -E '^(100%: Checks|Ran [0-9]+ tests|OK)' "$logs/check.log" || true
fi
if [ "$with_ci" = 1 ]; then
	if ! in_chroot ci 'CI=true bash .ci/run'; then
		tail -n 60 "$logs/ci.log"
		status=1
	fi
fi
[ "$status" = 0 ] || { keep_logs=1; fail "see the logs above"; }
say "passed"
