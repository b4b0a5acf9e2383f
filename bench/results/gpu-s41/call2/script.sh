set -u
B=$PWD/build-gpu
echo "tree: $(cat build-gpu/HEAD.txt); old = build-gpu/gputrace-11e5372"; uptime
T=$(mktemp -d)
CONV='import torch; m=torch.nn.Conv2d(3,8,3).cuda(); print(m(torch.randn(2,3,16,16,device="cuda")).sum().item())'
$B/gputrace -q -o $T/imp -- python3 -c 'import torch'
$B/gputrace -q -o $T/conv -- python3 -c "$CONV"
ls -la $HOME/.cache/gputrace/ > $T/cache-ls.txt 2>&1
for t in imp conv; do
  cp -r $T/$t $T/$t.live; rm -f $T/$t.live/gputrace-facts.json
  $B/gputrace-11e5372 report --json --save-facts $T/$t.live > $T/$t.old.json; echo "old rc $?"
  rm -f $T/$t.live/gputrace-facts.json; $B/gputrace report --json --save-facts $T/$t.live > $T/$t.new.json; echo "new rc $?"
  python3 - $T/$t.old.json $T/$t.new.json <<'PYEOF'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
fa, fb = a.pop("facts", None), b.pop("facts", None)
print(sys.argv[1], "same apart from the facts tally:" , a == b, fa, fb)
PYEOF
done
tar czf $OUT/traces.tgz -C $T imp conv imp.old.json imp.new.json conv.old.json conv.new.json cache-ls.txt
ONLY=diag RD=11 OUT=$OUT/c timeout 150 bash tests/gpu/cost29.sh
echo "== conv diagnosis child, 5 runs"
for i in 1 2 3 4 5; do d=$(mktemp -d); GPUTRACE_FACTS_PROFILE=1 $B/gputrace -q -o $d/t -- python3 -c "$CONV" 2>&1 | grep "facts profile" >> $OUT/conv-diag.txt; grep "child" $OUT/conv-diag.txt | tail -1; rm -rf $d; done
S=$(date +%s); OUT=$OUT/lt timeout 300 bash tests/gpu/longtail.sh > $OUT/longtail.stdout 2>&1; echo "longtail rc=$? in $(( $(date +%s) - S )) s"; tail -12 $OUT/longtail.stdout
