#!/bin/sh
# Records a newcomer's five commands (issue 30) in a tmux pane 100 columns
# wide, with an installed gputrace first on PATH, and writes the pane's
# whole history to OUT (capture-pane -J: lines tmux wrapped are joined
# again, so a line gputrace did not fold shows as a long one).
#   sh tools/record-newcomer.sh PREFIX [OUT]   (PREFIX: a `make install PREFIX=...`)
# The program traced is Debian's CPU-only PyTorch (python3-torch, installed
# by tools/install-deps.sh); scan --for looks at the toolkit's cuDNN.
set -eu
prefix=$1
out=${2:-doc/newcomer-session.txt}
command -v tmux >/dev/null || { echo "record-newcomer: no tmux" >&2; exit 1; }
work=$(mktemp -d)
session=gputrace-newcomer-$$
trap 'tmux kill-session -t "$session" 2>/dev/null; rm -rf "$work"' EXIT
tmux new-session -d -s "$session" -x 100 -y 50 \
	"env -i HOME=$work TERM=xterm-256color PATH=$prefix/bin:/usr/bin:/bin PS1='\$ ' NO_COLOR=1 bash --norc --noprofile"
tmux set -t "$session" history-limit 20000 >/dev/null
say() {   # one command, then wait for the prompt to come back
	tmux send-keys -t "$session" "$1" Enter
	n=0
	while [ $n -lt 300 ]; do
		sleep 1
		n=$((n + 1))
		tmux capture-pane -p -t "$session" -S - -E - | grep -v '^$' | tail -1 | grep -qx '\$' && break
	done
}
say "cd $work && clear"
say "gputrace -o run -- python3 -c 'import torch; print(torch.cuda.is_available())'"
say "gputrace report run"
say "gputrace scan"
say "gputrace scan --for /usr/local/cuda/lib64/libcudnn.so.9"
say "gputrace doctor"
tmux capture-pane -p -J -t "$session" -S - -E - | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' |
	sed "s#$work#/home/me/work#g" | awk 'NF || seen { seen = 1; print }' >"$out"
echo "record-newcomer: $(wc -l <"$out") lines in $out, the longest $(awk '{ if (length > m) m = length } END { print m }' "$out") columns"
