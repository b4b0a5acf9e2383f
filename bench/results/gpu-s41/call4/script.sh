set -u
B=$PWD/build-gpu
echo "tree: $(cat build-gpu/HEAD.txt)"; uptime
S=$(date +%s); OUT=$OUT/m timeout 330 bash tests/gpu/matrix.sh > $OUT/matrix.stdout 2>&1; echo "matrix rc=$? in $(( $(date +%s) - S )) s"
python3 - $OUT/m/matrix.jsonl <<'PYEOF'
import json, sys
for l in open(sys.argv[1]):
    c = json.loads(l)
    print({k: c.get(k) for k in ("case", "bare", "traced", "stdout_same", "report_exit", "errors", "warnings")})
PYEOF
cd $OUT && tar czf m.tgz m && rm -rf m
