#!/bin/sh
# Times `gputrace report` on one process holding N copies of cuDNN (issue 29:
# the diagnosis was super-quadratic in the copies of one family). Medians of
# RUNS runs at each N. Needs a built tree (BUILD) with its fixtures.
#   bench/copies_report.sh [N...]        (default: 1000 4000 20000)
set -e
BUILD=${BUILD:-build}
RUNS=${RUNS:-3}
LIMIT=${LIMIT:-300}
GT=$BUILD/gputrace
work=$(mktemp -d /tmp/gt-copies-XXXXXX)
trap 'rm -rf "$work"' EXIT
"$GT" -q -o "$work/tpl" /usr/bin/python3 -c pass
tpl=$(ls "$work"/tpl/*.jsonl | head -1)
for n in ${@:-1000 4000 20000}; do
	/usr/bin/python3 "$(dirname "$0")/gen_copies.py" -n "$n" "$work/c$n" "$tpl" "$BUILD/fixtures/system/lib"
	times=""
	for r in $(seq "$RUNS"); do
		s=$(date +%s.%N)
		timeout "$LIMIT" "$GT" report "$work/c$n/trace" >/dev/null || [ $? -le 1 ] || { times="$times >$LIMIT"; continue; }
		times="$times $(echo "$(date +%s.%N) - $s" | bc)"
	done
	med=$(echo $times | tr ' ' '\n' | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
	printf '%6d copies: median %s s (runs:%s)\n' "$n" "$med" "$times"
	rm -rf "$work/c$n"
done
