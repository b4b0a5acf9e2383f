#!/bin/sh
# What gputrace adds to each fork and each exec (issue 34): loops of process
# operations timed inside the program (bench/proc_loop.c) or inside the shell
# (bash's $EPOCHREALTIME), so the launcher and the process's own start and exit
# are left out. R paired rounds (default 11) of each loop, bare and under
# `gputrace -q -o DIR --` (with BEFORE=DIR also that build's gputrace, in the
# same rotating rounds); the medians of the ms per operation and the median of
# the per-round differences, which is the cost added to one fork or exec.
#   R=11 N=200 BUILD=build-rel [BEFORE=build-before] PYTHON=/usr/bin/python3 bench/exec_fork.sh
# A benchmark, not a test: nothing here asserts a time. Aim (issue): at most
# 0.2 ms added per exec or fork.
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build-rel}
R=${R:-11}
N=${N:-200}
PYTHON=${PYTHON:-/usr/bin/python3}
MAKE=${MAKE:-make}
GPUTRACE=${GPUTRACE:-$BUILD/gputrace}
LOOP=$BUILD/bench/proc_loop

$MAKE -s BUILD="$BUILD" SAN= all >/dev/null
$MAKE -s BUILD="$BUILD" SAN= "$LOOP" >/dev/null
ALSO=
if [ -n "${BEFORE:-}" ]; then
	test -x "$BEFORE/gputrace" || { echo "exec_fork.sh: no $BEFORE/gputrace" >&2; exit 2; }
	ALSO="--also before=$BEFORE/gputrace"
fi

# A shell loop timed by the shell itself: N times BODY, then ms per pass.
# $EPOCHREALTIME is seconds.microseconds (bash 5); dropping the dot gives us.
shell_loop() {
	printf '%s' "t0=\$EPOCHREALTIME; for ((i = 0; i < $N; i++)); do $1; done; t1=\$EPOCHREALTIME; "
	printf '%s' "ns=\$(( (\${t1//[.,]/} - \${t0//[.,]/}) * 1000 / $N )); "
	printf '%s' "printf 'shell n=$N ms_per_op=%d.%06d\\n' \$((ns / 1000000)) \$((ns % 1000000))"
}

# one LABEL EXTRA CMD...: EXTRA is "--extra cpu_ms_per_op" for proc_loop, "" for bash.
one() {
	label=$1 extra=$2
	shift 2
	# shellcheck disable=SC2086
	"$PYTHON" bench/paired.py --metric ms_per_op $extra --rounds "$R" --gputrace "$GPUTRACE" \
		$ALSO ${V:+-v} --label "$label" -- "$@"
	echo
}

echo "host: $(uname -srm), $(nproc --all) CPU(s), load $(cut -d' ' -f1-3 /proc/loadavg); $(date -u +%Y-%m-%dT%H:%MZ)"
rev='?'
if git rev-parse --git-dir >/dev/null 2>&1; then
	rev=$(git rev-parse --short HEAD)
	git diff --quiet HEAD -- common audit preload || rev="$rev, library sources modified"
fi
echo "gputrace: $GPUTRACE ($rev)${BEFORE:+; before: $BEFORE/gputrace}"
echo "per operation: ms; added = median over rounds of (traced - bare)"
echo
CPU="--extra cpu_ms_per_op"
one "fork: the child _exit(0)s at once, the parent waits ($N per run)" "$CPU" "$LOOP" fork "$N"
one "fork, the child ends with exit(0): its exit handlers and destructors run ($N per run)" \
	"$CPU" "$LOOP" fork-exit "$N"
one "fork + exec /bin/true + wait ($N per run)" "$CPU" "$LOOP" spawn "$N"
one "exec chain: the program execs itself, same pid ($N per run)" "$CPU" "$LOOP" chain "$N"
one "bash: for ((i = 0; i < $N; i++)); do /bin/true; done" "" bash -c "$(shell_loop /bin/true)"
one "bash: for ((i = 0; i < $N; i++)); do ( : ); done (a subshell: fork, exit)" "" \
	bash -c "$(shell_loop '( : )')"
