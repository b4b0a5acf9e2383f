#!/bin/sh
# Whole-process cost of gputrace on real PyTorch (GPU machine): R paired
# rounds (default 7) of `python3 bench/torch_conv.py` (import torch, one
# Conv2d forward on CUDA) bare vs `$GPUTRACE -q -o DIR -- python3 ...`,
# alternating the order, after one warm-up pair.  Prints the medians, the
# overhead in ms and %, the trace size and line count, and whether every run
# printed the same sum.  Bounded: no round starts after BUDGET seconds
# (default 150) and each run is cut at 60 s, so R=7 stays under 3 minutes.
#   R=7 GPUTRACE=build/gputrace PYTHON=python3 bench/torch_overhead.sh
# DECOMPOSE=1 also times the launcher alone and the library alone (4 arms a
# round: about twice as long).
set -eu
cd "$(dirname "$0")/.."
R=${R:-7}
BUDGET=${BUDGET:-150}
PYTHON=${PYTHON:-python3}
GPUTRACE=${GPUTRACE:-build/gputrace}

if [ ! -x "$GPUTRACE" ]; then
	if [ "$GPUTRACE" = build/gputrace ]; then
		${MAKE:-make} -s all >/dev/null
	else
		echo "torch_overhead: no gputrace at $GPUTRACE" >&2
		exit 1
	fi
fi
# Fails here, before any timing, if torch or CUDA is missing.
"$PYTHON" bench/torch_conv.py >/dev/null

echo "host: $(uname -srm), $(nproc) CPU(s); $(date -u +%Y-%m-%dT%H:%MZ)"
"$PYTHON" -c 'import torch; print("torch %s, CUDA %s, cuDNN %s, %s" % (torch.__version__, torch.version.cuda, torch.backends.cudnn.version(), torch.cuda.get_device_name(0)))'
"$PYTHON" bench/paired.py --metric wall --rounds "$R" --budget "$BUDGET" --timeout 60 \
	--gputrace "$GPUTRACE" --same-output ${DECOMPOSE:+--decompose} ${V:+-v} \
	--label "torch_conv.py: import torch + one Conv2d forward on CUDA (whole-process wall time)" \
	-- "$PYTHON" bench/torch_conv.py
