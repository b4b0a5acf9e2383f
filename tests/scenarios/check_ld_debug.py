#!/usr/bin/env python3
# Checks scenarios.tsv against what ld.so itself reports (LD_DEBUG=libs,files), bare, no tracer.
# Usage: check_ld_debug.py FIXTURES_DIR scenarios.tsv.  "label" notes are expected: ld.so names a
# shared search dir after the object that first registered it (RPATH vs RUNPATH).
import os, re, subprocess, sys
fix = os.path.realpath(sys.argv[1]); tsv = sys.argv[2]
def norm(p):
    p = p.replace(fix + '/', '') if p.startswith(fix) else p
    return os.path.normpath(p)
bad = 0
for line in open(tsv):
    if line.startswith('#') or not line.strip(): continue
    name, cmd, env, exp = line.rstrip('\n').split('\t')
    e = dict(os.environ); e.pop('LD_LIBRARY_PATH', None)
    if env != '-':
        for kv in env.split(' '):
            k, v = kv.split('=', 1); e[k] = v.replace('@FIX@', fix)
    e['LD_DEBUG'] = 'libs,files'; e['SCENARIO_MAPS'] = '/tmp/chk.maps'
    argv = [a.replace('@FIX@', fix) for a in cmd.split(' ')]
    argv[0] = os.path.join(fix, argv[0])
    pr = subprocess.run(argv, env=e, capture_output=True, text=True)
    log = [re.sub(r'^\s*\d+:\s?', '', l) for l in pr.stderr.splitlines()]
    # parse find blocks
    found = {}  # name -> list of (path, rule) or (None,'not_found')
    cur = None; label = None; last = None
    def close():
        if cur: found.setdefault(cur, []).append((last, label, False))
    for l in log:
        m = re.match(r'\s*find library=(\S+) \[\d+\]; searching', l)
        if m:
            close(); cur = m.group(1); label = None; last = None; continue
        m = re.match(r'\s*file=(\S+) \[\d+\];\s+generating link map', l)
        if m:
            if cur == m.group(1):
                found.setdefault(cur, []).append((last, label, True)); cur = None
            else:
                found.setdefault(m.group(1), []).append((m.group(1), 'absolute' if m.group(1).startswith('/') else '?', True))
            continue
        if cur is None: continue
        if 'search cache=' in l: label = 'ld_so_cache'
        elif '(LD_LIBRARY_PATH)' in l: label = 'ld_library_path'
        elif '(RPATH from' in l: label = 'rpath'
        elif '(RUNPATH from' in l: label = 'runpath'
        elif '(system search path)' in l: label = 'default'
        m = re.match(r'\s*trying file=(\S+)', l)
        if m: last = (m.group(1), label)
    close()
    msgs = []
    if pr.returncode: msgs.append('rc=%d' % pr.returncode)
    for t in exp.split(';'):
        f = t.split(','); req, path, rule = f[0].replace('@FIX@', fix), f[1], f[2]
        got = found.get(req, [])
        if rule == 'already_loaded' or rule == 'absolute':
            ok = any(g[2] for g in got) if rule == 'absolute' else True
        elif rule == 'not_found':
            ok = got and not any(g[2] for g in got)
        else:
            ok = False
            for last_, lab, succ in got:
                if succ and last_ and norm(last_[0]) == norm(path):
                    if last_[1] == rule: ok = True
                    else: msgs.append('%s: label %s (expected %s)' % (req, last_[1], rule)); ok = True
        if not ok: msgs.append('%s: expected %s via %s, got %s' % (req, path, rule, got))
    print(('OK   ' if not msgs else 'FAIL ') + name, '; '.join(msgs)); bad += bool([m for m in msgs if 'label' not in m])
    for suf in ('', '.child'):
        if os.path.exists('/tmp/chk.maps' + suf): os.unlink('/tmp/chk.maps' + suf)
sys.exit(bad)
