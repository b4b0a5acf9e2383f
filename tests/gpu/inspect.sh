#!/usr/bin/env bash
# gputrace inspect on the GPU machine (issue 31 part 2): a torch training loop
# on the H200, inspected while it runs, without stopping it.
#   bash tests/gpu/inspect.sh        (from the repository root, build-gpu/ carried:
#   make BUILD=build-gpu SAN= GVC=0 JANSSON_LIBS=-l:libjansson.a ELF_LIBS="-l:libelf.a -l:libz.a" all)
# Cases (PASS/FAIL lines, a summary, exit 1 on any FAIL; logs under $OUT):
#  - healthy: the loop as it is (torch 2.11, pip cuDNN 9.19): inspect exits 0, no
#    error finding, its libraries hold the wheel's libcudnn and libcudart, and the
#    loop goes on stepping after the inspection (its step count grows) and ends 0
#  - mixed:   the same loop with the system cuDNN 9.14's folder first on
#    LD_LIBRARY_PATH (the wheel's libcudnn.so.9 by path, the sub-libraries 9.14:
#    DESIGN.md's measured case): mixed-versions through inspect, exit 1, and the
#    loop still runs
set -u
cd "$(dirname "$0")/../.." || exit 2
GT=${GT:-$PWD/build-gpu/gputrace}
PY=${PY:-python3}
OUT=${OUT:-/tmp/gpu-out}
SYSDIR=${SYSDIR:-/lib/x86_64-linux-gnu}
W=$(mktemp -d /tmp/gt-inspect.XXXXXX)
mkdir -p "$OUT"
fails=0 passes=0

pass() { echo "PASS $*" | tee -a "$OUT/inspect-summary.txt"; passes=$((passes + 1)); }
fail() { echo "FAIL $*" | tee -a "$OUT/inspect-summary.txt"; fails=$((fails + 1)); }

# A training loop: steps until $W/stop-<case> exists, writing its step count.
cat >"$W/train.py" <<'PY'
import os, sys, time
import torch
case, folder = sys.argv[1], sys.argv[2]
torch.manual_seed(0)
m = torch.nn.Sequential(torch.nn.Conv2d(3, 32, 3), torch.nn.ReLU(), torch.nn.Flatten(),
                        torch.nn.Linear(32 * 62 * 62, 10)).cuda()
opt = torch.optim.SGD(m.parameters(), lr=0.01)
x = torch.randn(64, 3, 64, 64, device="cuda")
y = torch.randint(0, 10, (64,), device="cuda")
step = 0
deadline = time.time() + 300
while not os.path.exists(os.path.join(folder, "stop-" + case)) and time.time() < deadline:
    opt.zero_grad()
    loss = torch.nn.functional.cross_entropy(m(x), y)
    loss.backward()
    opt.step()
    torch.cuda.synchronize()
    step += 1
    with open(os.path.join(folder, "steps-" + case + ".tmp"), "w") as f:
        f.write(str(step))
    os.replace(os.path.join(folder, "steps-" + case + ".tmp"), os.path.join(folder, "steps-" + case))
print("steps", step, "loss", float(loss), "cudnn", torch.backends.cudnn.version(), flush=True)
PY

steps() {
	local n
	n=$(cat "$W/steps-$1" 2>/dev/null)
	echo "${n:-0}"
}

# Starts the loop for case $1 (with env words after it), waits for 20 steps.
start() {
	local case=$1
	shift
	env "$@" "$PY" "$W/train.py" "$case" "$W" >"$OUT/inspect-$case.train.out" 2>&1 &
	pid=$!
	for _ in $(seq 1 600); do
		[ "$(steps "$case")" -ge 20 ] && return 0
		kill -0 "$pid" 2>/dev/null || return 1
		sleep 0.2
	done
	return 1
}

# Inspects case $1's loop; checks it still steps afterwards, then stops it.
inspect_case() {
	local case=$1 before after status
	before=$(steps "$case")
	"$GT" inspect --color=never "$pid" >"$OUT/inspect-$case.txt" 2>&1
	status=$?
	"$GT" inspect --json "$pid" >"$OUT/inspect-$case.json" 2>"$OUT/inspect-$case.json.err"
	echo "$status" >"$OUT/inspect-$case.status"
	sleep 2
	after=$(steps "$case")
	if kill -0 "$pid" 2>/dev/null && [ "$after" -gt "$before" ]; then
		pass "$case: the loop kept running through inspect (step $before -> $after)"
	else
		fail "$case: the loop did not go on (step $before -> $after)"
	fi
	touch "$W/stop-$case"
	wait "$pid"
	echo "$?" >"$OUT/inspect-$case.train.status"
	return "$status"
}

ids() { "$PY" -c 'import json,sys; print(" ".join(f["id"]+":"+f["severity"] for f in json.load(open(sys.argv[1]))["findings"]))' "$1"; }
libs() { "$PY" -c 'import json,sys; print("\n".join(l.get("real_path") or l["path"] for p in json.load(open(sys.argv[1]))["processes"] for l in p["libraries"]))' "$1"; }

echo "== $(date -u) $("$GT" --version) on $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -1)" \
	| tee "$OUT/inspect-summary.txt"

if start healthy; then
	inspect_case healthy
	status=$?
	echo "healthy: inspect exit $status; findings: $(ids "$OUT/inspect-healthy.json")" | tee -a "$OUT/inspect-summary.txt"
	[ "$status" = 0 ] && pass "healthy: inspect exit 0" || fail "healthy: inspect exit $status"
	libs "$OUT/inspect-healthy.json" >"$OUT/inspect-healthy.libs"
	grep -q 'nvidia/cudnn/lib/libcudnn\.so\.9' "$OUT/inspect-healthy.libs" && grep -q 'libcudart\.so\.' "$OUT/inspect-healthy.libs" \
		&& pass "healthy: the wheel's libcudnn and a libcudart listed" \
		|| fail "healthy: libraries: $(tr '\n' ' ' <"$OUT/inspect-healthy.libs")"
	[ "$(cat "$OUT/inspect-healthy.train.status")" = 0 ] && pass "healthy: the loop ended 0" \
		|| fail "healthy: the loop ended $(cat "$OUT/inspect-healthy.train.status")"
else
	fail "healthy: the training loop did not start ($(tail -3 "$OUT/inspect-healthy.train.out"))"
fi

if [ -e "$SYSDIR/libcudnn_graph.so.9" ] && start mixed LD_LIBRARY_PATH="$SYSDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"; then
	inspect_case mixed
	status=$?
	echo "mixed: inspect exit $status; findings: $(ids "$OUT/inspect-mixed.json")" | tee -a "$OUT/inspect-summary.txt"
	ids "$OUT/inspect-mixed.json" | grep -q 'mixed-versions:error' && [ "$status" = 1 ] \
		&& pass "mixed: mixed-versions through inspect, exit 1" || fail "mixed: no mixed-versions (exit $status)"
else
	echo "mixed: skipped (no $SYSDIR/libcudnn_graph.so.9, or the loop did not start)" | tee -a "$OUT/inspect-summary.txt"
fi

echo "== $passes passed, $fails failed" | tee -a "$OUT/inspect-summary.txt"
rm -rf "$W"
[ "$fails" = 0 ]
