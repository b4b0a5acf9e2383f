#!/bin/sh
# Worker wrapper for torchrun --no-python: local rank 1 gets the system cuDNN
# 9.14 folder first on LD_LIBRARY_PATH, the way a stale environment on one
# host would give it; the other ranks run unchanged.
if [ "${LOCAL_RANK:-}" = 1 ]; then
	LD_LIBRARY_PATH=/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
	export LD_LIBRARY_PATH
fi
exec "$@"
