set -u
B=$PWD/build-gpu
echo "tree: $(cat build-gpu/HEAD.txt); old = build-gpu/gputrace-11e5372"; uptime
T=$(mktemp -d)
CONV='import torch; m=torch.nn.Conv2d(3,8,3).cuda(); print(m(torch.randn(2,3,16,16,device="cuda")).sum().item())'
$B/gputrace -q -o $T/imp -- python3 -c 'import torch'
$B/gputrace -q -o $T/conv -- python3 -c "$CONV"
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
  echo "== $t live report profile"; rm -f $T/$t.live/gputrace-facts.json; GPUTRACE_FACTS_PROFILE=1 $B/gputrace report --save-facts $T/$t.live 2>&1 >/dev/null | grep -v "slow real\|slow elf\|slow package"
done
tar czf $OUT/traces.tgz -C $T imp conv imp.old.json imp.new.json conv.old.json conv.new.json
ONLY=diag RD=11 OUT=$OUT/c timeout 150 bash tests/gpu/cost29.sh
echo "== paired diagnosis child, old (11e5372's report code) and new"
timeout 200 sh bench/diag_pairs.sh build-gpu/old build-gpu 11 python3 | tee $OUT/diag-pairs.txt
echo "== conv diagnosis child, 5 runs"
for i in 1 2 3 4 5; do d=$(mktemp -d); GPUTRACE_FACTS_PROFILE=1 $B/gputrace -q -o $d/t -- python3 -c "$CONV" 2>&1 | grep "facts profile" >> $OUT/conv-diag.txt; grep "child" $OUT/conv-diag.txt | tail -1; rm -rf $d; done
S=$(date +%s); ONLY=torch RT=15 TOGETHER="3,7,11" OUT=$OUT/t timeout 200 bash tests/gpu/cost29.sh > $OUT/torch.stdout 2>&1; echo "torch arms rc=$? in $(( $(date +%s) - S )) s"; tail -12 $OUT/torch.stdout
