#!/bin/sh
# Test wrapper for many-process runs: gives this rank its cuDNN through the
# environment, then execs the program.  The rank comes from the launcher's
# variable; rank $ODD_RANK (default 2) gets the system cuDNN 9.14
# ($FIX/system/lib), every other rank the wheel's 9.19
# ($FIX/site-packages/nvidia/cudnn/lib, with the wheel's cudart).
# FIX: the built fixtures folder (default: build/fixtures next to this script).
# Usage: rank_cudnn.sh PROGRAM [ARG...]
# No command substitution: a forked subshell would be one more traced process.
case $0 in */*) here=${0%/*} ;; *) here=. ;; esac
fix=${FIX:-$here/../../build/fixtures}
rank=${OMPI_COMM_WORLD_RANK:-${RANK:-${PMIX_RANK:-${PMI_RANK:-${SLURM_PROCID:-}}}}}
if [ "$rank" = "${ODD_RANK:-2}" ]; then
	dirs=$fix/system/lib
else
	dirs=$fix/site-packages/nvidia/cudnn/lib:$fix/site-packages/nvidia/cuda_runtime/lib
fi
LD_LIBRARY_PATH=$dirs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export LD_LIBRARY_PATH
exec "$@"
