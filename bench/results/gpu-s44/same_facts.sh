#!/bin/sh
# One import torch traced by each of two builds: their reports and their
# facts files (less what differs by run: pid, times, the trace folder) must be
# the same. gpu-s44: the paper loader's faster searches (6b36753) against
# 086c085.   sh same_facts.sh OLD_BUILD NEW_BUILD OUT
set -u
for arm in old new; do
	b=$1; [ "$arm" = new ] && b=$2
	rm -rf "/tmp/sf-$arm"
	GPUTRACE_FACTS_PROFILE=1 "$b/gputrace" -q -o "/tmp/sf-$arm" -- python3 -c 'import torch' 2>"$3/profile-$arm.txt"
	python3 -c "import json,sys; print(json.dumps(json.load(open('/tmp/sf-$arm/gputrace-facts.json'))['hosts'], sort_keys=True, indent=1))" >"$3/facts-$arm.json"
	sed 's/pid [0-9]*/pid N/g; s/vm\.[0-9]*\.jsonl/T/g; s|/tmp/sf-[a-z]*|D|g' "/tmp/sf-$arm/report.txt" >"$3/report-$arm.txt"
done
if cmp -s "$3/facts-old.json" "$3/facts-new.json" && cmp -s "$3/report-old.txt" "$3/report-new.txt"; then
	echo "same facts ($(grep -c '"path"' "$3/facts-new.json") candidate paths) and report"
else
	echo "DIFFERENT"; diff "$3/facts-old.json" "$3/facts-new.json" | head -20; diff "$3/report-old.txt" "$3/report-new.txt" | head -20
fi
grep -E "resolve .*asked|diagnosis child" "$3/profile-old.txt" "$3/profile-new.txt"
