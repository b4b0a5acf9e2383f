set -u
B=$PWD/build-gpu
echo "tree: $(cat build-gpu/HEAD.txt) + profile lines; old = build-gpu/gputrace-11e5372"; uptime
T=$(mktemp -d)
CONV='import torch; m=torch.nn.Conv2d(3,8,3).cuda(); print(m(torch.randn(2,3,16,16,device="cuda")).sum().item())'
$B/gputrace -q -o $T/imp -- python3 -c 'import torch'
$B/gputrace -q -o $T/conv -- python3 -c "$CONV"
mkdir -p $OUT/traces; cp -r $T/imp $T/conv $OUT/traces/
for t in imp conv; do
  rm -f $T/$t/gputrace-facts.json; $B/gputrace-11e5372 report --json --save-facts $T/$t > $T/$t.old.json; echo "old rc $?"
  rm -f $T/$t/gputrace-facts.json; $B/gputrace report --json --save-facts $T/$t > $T/$t.new.json; echo "new rc $?"
  cp $T/$t.old.json $T/$t.new.json $OUT/traces/
  python3 - $T/$t.old.json $T/$t.new.json <<'PYEOF'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
fa, fb = a.pop("facts", None), b.pop("facts", None)
print(sys.argv[1], "same apart from the facts tally:" , a == b, fa, fb)
PYEOF
  for k in 1 2; do rm -f $T/$t/gputrace-facts.json; echo "== $t report $k"; GPUTRACE_FACTS_PROFILE=1 $B/gputrace report --save-facts $T/$t 2>&1 >/dev/null | tail -30; done
done
ONLY=diag RD=11 OUT=$OUT/c timeout 150 bash tests/gpu/cost29.sh
echo "== conv diagnosis child, 5 runs"
for i in 1 2 3 4 5; do d=$(mktemp -d); GPUTRACE_FACTS_PROFILE=1 $B/gputrace -q -o $d/t -- python3 -c "$CONV" 2>&1 | grep "facts profile" > $OUT/conv-diag-$i.txt; grep "child\|phase" $OUT/conv-diag-$i.txt | tr '\n' ' '; echo; rm -rf $d; done
