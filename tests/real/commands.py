"""The real commands of the differential test (tests/real/run_real.py): each
runs bare twice and under gputrace once, in a fresh copy of fixture/, and
must do the same. Every entry has an id (for --only and the e2e sample), a
category, the argv, and what the list knows about it: its exit status
(negative: the signal that ends it), what it reads on stdin, the paths it
needs, the lines to filter and the streams that show gputrace's documented
process state (with the reason), and the error findings it really earns.

Shells are named by path: /bin/sh is dash on Debian, /bin/bash is bash.
Python is always /usr/bin/python3 (Debian's, with its dist-packages), never
the `python3` a PATH may find first.
"""
import re
import shlex

PY = "/usr/bin/python3"
NODE = "/usr/bin/node"
NVCC = "/usr/local/cuda-13.0/bin/nvcc"
DIST = "/usr/lib/python3/dist-packages/"


class Filter:
    """Lines dropped from a stream in every run, for a reason: what is left
    must still be the same."""

    def __init__(self, pattern, reason, streams=("stdout",)):
        self.regex = re.compile(pattern.encode())
        self.reason = reason
        self.streams = streams

    def apply(self, data):
        return b"".join(l for l in data.splitlines(keepends=True) if not self.regex.search(l))


# The documented differences of a traced process (doc/design-notes.md, the
# launcher): three environment variables and the library in its maps. The
# forms are env's and printenv's, `export -p` (dash), `declare -x` (bash)
# and Python's and Perl's own printing of the environment.
GT_VARS = r"(LD_AUDIT|LD_PRELOAD|GPUTRACE_DIR)"
ENV_LINES = Filter(r"^(export |declare -x )?'?" + GT_VARS + r"'?[=:]",
                   "the traced process's environment has LD_AUDIT, LD_PRELOAD and GPUTRACE_DIR "
                   "(documented)")
LDD_GT = Filter(r"libgputrace\.so",
                "ldd runs the loader with the environment's LD_PRELOAD, so it lists libgputrace.so "
                "(documented: LD_PRELOAD is set)")
MAPS = "/proc/self/maps holds libgputrace.so (twice: audit and preload copies) and the audit "\
       "namespace's libc (documented)"
ENV_COUNT = "the traced environment has three more variables: LD_AUDIT, LD_PRELOAD, GPUTRACE_DIR "\
            "(documented)"


class Command:
    def __init__(self, id, argv, status=0, stdin="", env=None, needs=(), filters=(),
                 expect_diff=None, allow_errors=None, wrapper=None, timeout=60, note=""):
        self.id = id
        self.argv = list(argv)
        self.category = None  # set by group()
        self.status = status
        self.stdin = stdin
        self.env = dict(env or {})
        self.needs = tuple(needs)
        self.filters = tuple(filters)
        self.expect_diff = dict(expect_diff or {})   # stream -> reason
        self.allow_errors = dict(allow_errors or {})  # finding id -> reason
        self.wrapper = wrapper
        self.timeout = timeout
        self.note = note

    def display(self):
        """The command as a shell would take it, on one line."""
        return " ".join(shlex.quote(a).replace("\n", "\\n") for a in (self.wrapper or []) + self.argv)


def run(id, line, **kw):
    """A program run directly (no shell), its argv split as a shell would."""
    return Command(id, shlex.split(line), **kw)


def sh(id, script, **kw):
    return Command(id, ["/bin/sh", "-c", script], **kw)


def bash(id, script, **kw):
    return Command(id, ["/bin/bash", "-c", script], **kw)


def py(id, code, **kw):
    return Command(id, [PY, "-c", code], **kw)


def perl(id, code, *args, **kw):
    return Command(id, ["/usr/bin/perl", "-e", code, *args], **kw)


def node(id, code, **kw):
    kw.setdefault("needs", (NODE,))
    return Command(id, [NODE, "-e", code], **kw)


def group(category, cmds):
    for c in cmds:
        c.category = category
    return cmds


CRASH_SEGV = {"crashed": "it really dies by SIGSEGV"}
CRASH_ABRT = {"crashed": "it really dies by SIGABRT"}
CRASH_KILL = {"crashed": "it really dies by SIGKILL"}

COREUTILS = group("coreutils", [
    run("echo", "echo hello world"),
    run("echo-n", "echo -n no newline"),
    run("echo-e", "/bin/echo -e 'a\\tb\\nc'"),
    run("printf", "printf '%s-%03d\\n' a 1 b 22"),
    run("true", "true"),
    run("false", "false", status=1),
    run("cat", "cat words.txt"),
    run("cat-n", "cat -n words.txt numbers.txt"),
    run("cat-stdin", "cat", stdin="from stdin\n"),
    run("cat-missing", "cat no-such-file", status=1),
    run("tac", "tac words.txt"),
    run("head", "head -n 3 words.txt"),
    run("head-c", "head -c 10 words.txt"),
    run("tail", "tail -n 3 words.txt"),
    run("tail-plus", "tail -n +18 words.txt"),
    run("wc", "wc words.txt numbers.txt"),
    run("wc-l", "wc -l words.txt"),
    run("sort", "sort words.txt"),
    run("sort-u", "sort -u words.txt"),
    run("sort-rn", "sort -rn numbers.txt"),
    run("sort-csv", "sort -t, -k2n data.csv"),
    run("sort-o", "sort -o sorted.txt words.txt"),
    run("uniq", "uniq -c words.txt"),
    run("cut-f", "cut -d, -f1,3 data.csv"),
    run("cut-c", "cut -c1-3 words.txt"),
    run("paste", "paste words.txt numbers.txt"),
    run("paste-s", "paste -sd, numbers.txt"),
    run("tr", "tr a-z A-Z", stdin="shout this\n"),
    run("tr-d", "tr -d aeiou", stdin="remove the vowels\n"),
    run("fold", "fold -w 4 words.txt"),
    run("fmt", "fmt -w 30 words.txt"),
    run("nl", "nl words.txt"),
    run("pr", "pr -t -3 words.txt"),
    run("expand", "expand -t 4", stdin="a\tb\tc\n"),
    run("unexpand", "unexpand -a", stdin="a       b\n"),
    run("od-c", "od -c numbers.txt"),
    run("od-x", "od -An -tx1 data.json"),
    run("base64", "base64 words.txt"),
    run("base64-d", "base64 -d", stdin="aGVsbG8K\n"),
    run("base32", "base32 numbers.txt"),
    run("md5sum", "md5sum words.txt numbers.txt"),
    run("sha1sum", "sha1sum words.txt"),
    run("sha256sum", "sha256sum words.txt data.csv"),
    run("sha512sum", "sha512sum numbers.txt"),
    run("b2sum", "b2sum words.txt"),
    run("cksum", "cksum words.txt"),
    run("sum", "sum words.txt"),
    run("expr", "expr 6 '*' 7"),
    run("expr-zero", "expr 0 + 0", status=1),
    run("seq", "seq 10"),
    run("seq-s", "seq -s, 1 2 11"),
    run("seq-f", "seq 0.5 0.5 3"),
    run("factor", "factor 1234567 97 1000000007"),
    run("numfmt", "numfmt --to=iec 1048576 123456789"),
    run("stat", "stat -c '%s %A %n' words.txt sub"),
    run("readlink-f", "readlink -f sub/../words.txt"),
    run("realpath", "realpath --relative-to=sub words.txt"),
    run("dirname", "dirname /a/b/c.txt"),
    run("basename", "basename /a/b/c.txt .txt"),
    run("touch", "touch new.txt"),
    run("mkdir-p", "mkdir -p x/y/z"),
    run("ln-s", "ln -s words.txt link.txt"),
    run("ln", "ln words.txt hard.txt"),
    run("cp", "cp words.txt copy.txt"),
    run("cp-r", "cp -r sub sub2"),
    run("mv", "mv words.txt moved.txt"),
    run("rm", "rm words.txt numbers.txt"),
    run("rm-r", "rm -r sub"),
    run("rmdir-fail", "rmdir sub", status=1),
    run("install", "install -m 755 words.txt installed.txt"),
    run("chmod", "chmod +x words.txt"),
    run("dd", "dd if=words.txt of=dd.out bs=16 count=2 status=none"),
    run("dd-stats", "dd if=words.txt of=/dev/null bs=16"),
    run("truncate", "truncate -s 100 big.bin"),
    run("split", "split -l 6 words.txt part_"),
    run("csplit", "csplit -s words.txt /kiwi/"),
    run("tee", "tee out1.txt out2.txt", stdin="teed\n"),
    run("shuf", "shuf --random-source=words.txt words.txt"),
    run("tsort", "tsort", stdin="a b\nb c\na c\n"),
    run("ls", "ls"),
    run("ls-1a", "ls -1a sub"),
    run("ls-R", "ls -R"),
    run("ls-l", "ls -ln --time-style=+ ."),
    run("ls-missing", "ls no-such-dir", status=2),
    run("du", "du -a --apparent-size sub"),
    run("id-u", "id -u"),
    run("id-un", "id -un"),
    run("whoami", "whoami"),
    run("groups", "groups"),
    run("uname", "uname -sm"),
    run("hostname", "hostname"),
    run("nproc", "nproc"),
    run("date-epoch", "date -d @0"),
    run("date-fmt", "date -u -d '2024-02-29 12:00' +%j.%A"),
    run("date-now", "date +%s.%N", note="nondeterministic on purpose: checks the detection"),
    run("printenv-home", "printenv HOME"),
    run("printenv-missing", "printenv NO_SUCH_VARIABLE", status=1),
    run("sleep", "sleep 0.1"),
    run("timeout-ok", "timeout 5 true"),
    run("nice", "nice -n 5 nice"),
    run("nohup", "nohup echo hung up"),
    run("stdbuf", "stdbuf -oL echo line buffered"),
    run("test-f", "test -f words.txt"),
    run("test-d", "test -d words.txt", status=1),
    run("bracket", "[ 1 -lt 2 ]"),
    run("tty", "tty", status=1),
    run("sync", "sync words.txt"),
    run("mkfifo", "mkfifo fifo"),
    run("link-unlink", "unlink numbers.txt"),
    run("pathchk", "pathchk words.txt sub/top.txt"),
    run("comm", "comm -12 words.txt words.txt"),
    run("yes-head-c", "head -c 0 /dev/zero"),
    run("env-u", "env -u HOME printenv HOME", status=1),
    run("getconf", "getconf PAGESIZE"),
    run("locale", "locale"),
    run("iconv", "iconv -f utf-8 -t latin1", stdin="caf\u00e9\n"),
])

SHELL_DASH = group("shell-dash", [
    sh("sh-echo-ab", "echo a; echo b"),
    sh("sh-subst", 'x=$(echo sub); echo "got $x"'),
    sh("sh-backticks", "echo `echo back`"),
    sh("sh-nested-subst", "echo $(echo $(echo deep))"),
    sh("sh-subshell", '(echo in subshell; exit 4); echo "sub rc=$?"'),
    sh("sh-subshell-cd", "(cd sub && ls); pwd"),
    sh("sh-for", "for i in 1 2 3; do echo $i; done"),
    sh("sh-while", "i=0; while [ $i -lt 5 ]; do i=$((i+1)); done; echo $i"),
    sh("sh-case", "case foo in f*) echo match;; *) echo no;; esac"),
    sh("sh-function", 'f() { echo "fn $1"; }; f one; f two'),
    sh("sh-exit-7", "exit 7", status=7),
    sh("sh-false", "false", status=1),
    sh("sh-set-e", "set -e; false; echo never", status=1),
    sh("sh-stderr", "echo err >&2; echo out"),
    sh("sh-heredoc", "cat <<EOF\nhere doc $HOME\nEOF"),
    sh("sh-read", 'read line; echo "read: $line"', stdin="a line\n"),
    sh("sh-arith", "echo $((3*7)) $((1<<10))"),
    sh("sh-printf", 'printf "%05d|%-4s|\\n" 42 ab'),
    sh("sh-script", "./script.sh one 'two words'"),
    sh("sh-source", ". ./script.sh x y"),
    sh("sh-exec-echo", "exec echo replaced"),
    sh("sh-exec-true", "exec /bin/true"),
    sh("sh-nested-sh", "sh -c 'sh -c \"echo nested\"'"),
    sh("sh-trap-exit", 'trap "echo bye" EXIT; echo hi'),
    sh("sh-umask", "umask; umask 077; touch private; ls -l private | cut -c1-10"),
    sh("sh-ulimit-n", "ulimit -n"),
    sh("sh-ulimit-a", "ulimit -a"),
    sh("sh-proc-fd", "ls /proc/self/fd"),
    sh("sh-fd3", "exec 3>three.txt; echo via3 >&3; exec 3>&-; cat three.txt"),
    sh("sh-background", "sleep 0.1 & wait; echo done"),
    sh("sh-brace-read", 'echo a | { read x; echo "got $x"; }'),
    sh("sh-cd-root", "cd / && pwd"),
    sh("sh-command-v", "command -v ls; command -v cd"),
    sh("sh-kill-0", "kill -0 $$ && echo alive"),
    sh("sh-getopts", 'set -- -a -b val rest; while getopts ab: o; do echo "$o $OPTARG"; done'),
    sh("sh-set-args", 'set -- a b c; echo $#; echo "$@"; shift; echo "$@"'),
    sh("sh-ifs", "IFS=,; set -- $(head -1 data.csv); echo $2"),
    sh("sh-glob", "echo *.txt; echo sub/*"),
    sh("sh-and-or", "true && echo and || echo or; false || echo rescued"),
    sh("sh-if", "if [ -e nope ]; then echo yes; else echo no; fi"),
    sh("sh-export", 'x=1; export x; sh -c "echo \\$x"'),
    sh("sh-inner-exit", 'sh -c "exit 5"; echo "inner $?"'),
    sh("sh-param-expand", "echo ${HOME##*/} ${NOPE:-default} ${#HOME}"),
    sh("sh-redirect-append", "echo one > f.txt; echo two >> f.txt; cat f.txt"),
    sh("sh-noclobber", "set -C; echo x > words.txt", status=2),
    sh("sh-syntax-error", "if then", status=2),
    sh("sh-not-found", "no-such-command-here", status=127),
    sh("sh-not-executable", "./words.txt", status=126),
    sh("sh-pwd", "pwd; cd sub; pwd"),
    sh("sh-eval", 'cmd="echo evaluated"; eval "$cmd"'),
    sh("sh-readonly", "readonly r=1; r=2", status=2),
    sh("sh-type", "type echo cd ls"),
])

SHELL_BASH = group("shell-bash", [
    bash("bash-echo-ab", "echo a; echo b"),
    bash("bash-array", "a=(1 2 3); echo ${#a[@]} ${a[1]}"),
    bash("bash-assoc", "declare -A m; m[k]=v; m[j]=w; echo ${m[k]} ${#m[@]}"),
    bash("bash-dbracket", '[[ abc == a* ]] && echo glob-match'),
    bash("bash-regex", '[[ abc123 =~ ([0-9]+) ]] && echo ${BASH_REMATCH[1]}'),
    bash("bash-brace", "echo {1..5} {a,b}{c,d}"),
    bash("bash-procsubst", "diff <(sort words.txt) <(sort -u words.txt)", status=1),
    bash("bash-mapfile", "mapfile -t a < words.txt; echo ${#a[@]} ${a[-1]}"),
    bash("bash-printf-v", 'printf -v x "%03d" 7; echo $x'),
    bash("bash-pipefail", "set -o pipefail; false | true; echo $?"),
    bash("bash-nullglob", "shopt -s nullglob; echo none*; echo end"),
    bash("bash-version", "echo ${BASH_VERSINFO[0]}"),
    bash("bash-time", "time true", note="stderr is times: nondeterministic"),
    bash("bash-fd-801", "exec 801>high.txt; echo high >&801; exec 801>&-; cat high.txt"),
    bash("bash-coproc", "coproc cat; echo ping >&${COPROC[1]}; read -u ${COPROC[0]} x; echo $x"),
    bash("bash-random", "echo $RANDOM", note="nondeterministic on purpose"),
    bash("bash-trap-usr2", "trap 'echo got USR2' USR2; kill -USR2 $$; echo after"),
    bash("bash-herestring", 'read -r a b <<< "x y"; echo $b'),
    bash("bash-let", "let x=5*5; echo $x; (( x > 20 )) && echo big"),
    bash("bash-cfor", "for ((i=0;i<3;i++)); do echo $i; done"),
    bash("bash-case-mod", "s=hello; echo ${s^^} ${s:1:3} ${s/l/L}"),
    bash("bash-help", "help cd | head -1"),
    bash("bash-proc-fd", "ls /proc/self/fd"),
    bash("bash-nested", "bash -c 'bash -c \"echo nested bash\"'"),
    bash("bash-unbound", "set -u; echo $undefined", status=127),
    bash("bash-source", "source ./script.sh s"),
    bash("bash-wait-n", "sleep 0.1 & sleep 0.2 & wait -n; echo one; wait; echo all"),
    bash("bash-subst-exit", 'x=$(exit 3); echo "rc $?"'),
    bash("bash-exit-300", "exit 300", status=44),
    bash("bash-exec-a", "exec -a renamed sh -c 'echo $0'"),
    bash("bash-local", "f() { local v=in; echo $v; }; v=out; f; echo $v"),
    bash("bash-errexit-trap", "trap 'echo err trapped' ERR; false; echo continues"),
    bash("bash-globstar", "shopt -s globstar; echo **/*.txt"),
    # extglob changes how a line parses, so it is set before bash reads the script.
    Command("bash-extglob", ["/bin/bash", "-O", "extglob", "-c", "echo !(*.txt|*.c|*.py|*.cu|*.sh|*.mk)"]),
    bash("bash-read-loop", "while IFS=, read n a c; do echo \"$n:$c\"; done < data.csv"),
    bash("bash-ulimit", "ulimit -Sn; ulimit -Hn"),
    bash("bash-compgen", "compgen -b | head -3"),
])

PIPELINE = group("pipeline", [
    sh("sh-yes-head", "yes | head -n 1"),
    bash("bash-yes-head", "yes | head -n 1"),
    bash("bash-pipestatus", 'yes | head -n 1; echo "${PIPESTATUS[@]}"'),
    bash("bash-pipefail-sigpipe", "set -o pipefail; yes | head -n 1; echo rc=$?"),
    sh("sh-seq-head", "seq 100000 | head -n 2"),
    sh("sh-yes-head-c", "yes abc | head -c 20"),
    sh("sh-zero-head", "cat /dev/zero | head -c 5 | od -An -c"),
    sh("sh-yes-count", "yes | head -n 1000 | wc -l"),
    sh("sh-sort-uniq", "cat words.txt | sort | uniq -c | sort -rn | head -3"),
    sh("sh-while-read", "seq 5 | while read n; do echo $((n*n)); done"),
    sh("sh-tee-pipe", "sort -u words.txt | tr a-z A-Z | tee up.txt | wc -l"),
    sh("sh-grep-wc", "grep an words.txt | wc -l"),
    sh("sh-cut-uniq", "cut -d, -f3 data.csv | tail -n +2 | sort | uniq -c"),
    sh("sh-find-sort", "find . -name '*.txt' | sort"),
    sh("sh-xargs", "ls | xargs -n1 echo item"),
    sh("sh-paste-bc", "seq 10 | paste -sd+ | bc"),
    sh("sh-python-sigpipe", PY + " -c 'while True: print(1)' | head -n 2"),
    sh("sh-perl-sigpipe", "perl -e 'print qq(x\\n) while 1' | head -n 1"),
    sh("sh-tac-nl", "seq 1 3 | tac | nl"),
    sh("sh-long-pipe", "cat words.txt | tr a-z A-Z | sort | uniq | rev | head -n 4 | tail -n 2"),
    sh("sh-base64-roundtrip", "base64 words.txt | base64 -d | sha256sum"),
    sh("sh-gzip-pipe", "gzip -c words.txt | gunzip | wc -c"),
])

MAKE = group("make", [
    run("make-all", "make"),
    run("make-check", "make check"),
    run("make-n", "make -n all"),
    run("make-fail", "make fail", status=2),
    run("make-subdir", "make subdir"),
    run("make-j2", "make -j2 all"),
    sh("make-twice", "make -s greeting.txt && make greeting.txt && cat greeting.txt"),
    run("make-clean", "make clean"),
    run("make-no-file", "make -f no-such.mk", status=2),
    run("make-clang", "make -s check CC=clang"),
    run("make-p-q", "make -q hello", status=1),
])

GIT_INIT = "git init -q -b main r && cd r && "
GIT = group("git", [
    run("git-version", "git --version"),
    sh("git-init", "git init -q -b main r && git -C r status --short && echo ok"),
    sh("git-commit", GIT_INIT + "cp ../words.txt . && git add words.txt && git commit -q -m first"
       " && git log --oneline"),
    sh("git-hook", GIT_INIT + "printf '#!/bin/sh\\necho pre-commit hook ran >&2\\n' > .git/hooks/pre-commit"
       " && chmod +x .git/hooks/pre-commit && echo x > f && git add f && git commit -q -m m"
       " && git rev-parse HEAD"),
    sh("git-hook-msg", GIT_INIT + "printf '#!/bin/sh\\necho \"[hooked]\" >> \"$1\"\\n' > .git/hooks/commit-msg"
       " && chmod +x .git/hooks/commit-msg && echo x > f && git add f && git commit -q -m m"
       " && git log -1 --format=%B"),
    sh("git-hook-reject", GIT_INIT + "printf '#!/bin/sh\\nexit 1\\n' > .git/hooks/pre-commit"
       " && chmod +x .git/hooks/pre-commit && echo x > f && git add f && git commit -q -m m", status=1),
    sh("git-diff", GIT_INIT + "cp ../words.txt . && git add . && git commit -q -m a"
       " && sed -i s/apple/APPLE/ words.txt && git diff --stat && git diff | tail -n 4"),
    sh("git-branch-merge", GIT_INIT + "echo a > a && git add a && git commit -q -m a && git checkout -q -b topic"
       " && echo b > b && git add b && git commit -q -m b && git checkout -q main"
       " && git merge -q --no-edit topic && git log --format=%s"),
    sh("git-tag-show", GIT_INIT + "echo a > a && git add a && git commit -q -m a && git tag v1"
       " && git show --stat --format=%H v1"),
    sh("git-clone", GIT_INIT + "echo a > a && git add a && git commit -q -m a && cd .. && git clone -q r c"
       " && ls c && git -C c log --format=%s"),
    sh("git-config-global", "git config --global user.name Someone && git config --global --list"),
    sh("git-cat-file", GIT_INIT + "echo content > f && git add f && git cat-file -p $(git hash-object f)"),
    sh("git-fsck", GIT_INIT + "echo a > a && git add a && git commit -q -m a && git fsck --no-progress"
       " && git count-objects"),
    sh("git-not-repo", "git status", status=128),
])

TAR_SORT = "tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner"
ARCHIVE = group("archive", [
    sh("tar-plain", "tar cf a.tar words.txt sub && tar tf a.tar"),
    sh("tar-gzip", "tar czf a.tgz sub words.txt && tar tzf a.tgz"),
    sh("tar-xz", "tar cJf a.txz sub && tar tJf a.txz"),
    sh("tar-bzip2", "tar cjf a.tbz sub && tar tjf a.tbz"),
    sh("tar-zstd", "tar --zstd -cf a.tzst sub && tar --zstd -tf a.tzst"),
    sh("tar-roundtrip", "tar czf a.tgz sub && rm -r sub && tar xzf a.tgz && cat sub/nested/deep.txt"),
    sh("tar-reproducible", TAR_SORT + " -cf - sub words.txt | sha256sum"),
    sh("tar-xz-reproducible", TAR_SORT + " -cf - sub | xz -c | xz -dc | sha256sum"),
    run("gzip-k", "gzip -k words.txt"),
    sh("gzip-cat", "gzip -c words.txt > w.gz && zcat w.gz | head -2"),
    run("gzip-test-bad", "gzip -t words.txt", status=1),
    run("xz-k", "xz -k numbers.txt"),
    sh("xz-roundtrip", "xz -c words.txt | xz -dc | md5sum"),
    run("bzip2-k", "bzip2 -k words.txt"),
    sh("zstd-roundtrip", "zstd -q -c words.txt | zstd -q -dc | wc -l"),
    sh("zip-unzip", "zip -q -X a.zip words.txt data.csv && unzip -Z1 a.zip", needs=("/usr/bin/zip",)),
])

COMPILE = group("compile", [
    sh("gcc-run", "gcc -o hello hello.c && ./hello a b"),
    sh("clang-run", "clang -o hello hello.c && ./hello c"),
    run("gcc-c", "gcc -O2 -Wall -c hello.c"),
    sh("gcc-E", "gcc -E hello.c | grep -c printf"),
    sh("gcc-S", "gcc -S -o - hello.c | grep -c call"),
    sh("gcc-error", "echo 'int main(void) { return x; }' > bad.c && gcc -c bad.c", status=1),
    sh("gcc-quick-exit", "gcc -o qe quick_exit.c && ./qe 3", status=3),
    sh("gcc-static", "gcc -static -o hs hello.c && ./hs static"),
    sh("gxx-run", "printf '#include <iostream>\\nint main() { std::cout << \"c++\" << std::endl; }\\n' > h.cpp"
       " && g++ -o hpp h.cpp && ./hpp"),
    sh("gcc-dlopen", "printf 'int answer(void) { return 42; }\\n' > lib.c"
       " && gcc -shared -fPIC -o libanswer.so lib.c"
       " && printf '#include <dlfcn.h>\\n#include <stdio.h>\\nint main(void) { void *h = dlopen(\"./libanswer.so\", RTLD_NOW);"
       " int (*f)(void) = (int (*)(void))dlsym(h, \"answer\"); printf(\"%%d\\\\n\", f()); return dlclose(h); }\\n' > main.c"
       " && gcc -o dl main.c -ldl && ./dl"),
    sh("gcc-rpath", "printf 'int seven(void) { return 7; }\\n' > s.c && mkdir lib"
       " && gcc -shared -fPIC -o lib/libseven.so s.c"
       " && printf 'int seven(void);\\nint main(void) { return seven(); }\\n' > m.c"
       " && gcc -o m m.c -Llib -lseven -Wl,-rpath,\\$ORIGIN/lib && ./m", status=7),
    sh("gcc-openmp", "printf '#include <stdio.h>\\nint main(void) { int s = 0;\\n#pragma omp parallel for reduction(+:s)\\n"
       "for (int i = 0; i < 100; i++) s += i;\\nprintf(\"%%d\\\\n\", s); }\\n' > omp.c && gcc -fopenmp -o omp omp.c && ./omp"),
    sh("gcc-pthread", "printf '#include <pthread.h>\\n#include <stdio.h>\\nstatic void *f(void *a) { return a; }\\n"
       "int main(void) { pthread_t t; void *r; pthread_create(&t, 0, f, (void *)5); pthread_join(t, &r);"
       " printf(\"%%ld\\\\n\", (long)r); }\\n' > t.c && gcc -pthread -o t t.c && ./t"),
    sh("cc-version", "gcc --version | head -1; clang --version | head -1"),
    run("ld-version", "ld --version"),
    sh("clang-asan", "clang -fsanitize=address -g -o ha hello.c && ./ha asan",
       note="an ASan program wants its runtime first in the initial library list; LD_PRELOAD puts "
            "libgputrace.so first"),
])

PERL = group("perl", [
    perl("perl-hello", 'print "hello\\n"'),
    Command("perl-grep", ["/usr/bin/perl", "-ne", "print if /an/", "words.txt"]),
    Command("perl-split", ["/usr/bin/perl", "-F,", "-lane", "print $F[2]", "data.csv"]),
    perl("perl-strftime", 'use POSIX; print strftime("%Y-%m-%d", gmtime(86400*365)), "\\n"'),
    perl("perl-listutil", 'use List::Util qw(sum max); print sum(1..10), " ", max(3,9,2), "\\n"'),
    perl("perl-exit", "exit 3", status=3),
    perl("perl-_exit", "use POSIX; print STDERR qq(bye\\n); POSIX::_exit(4)", status=4),
    perl("perl-kill-term", 'kill "TERM", $$; sleep 1', status=-15),
    perl("perl-die", 'die "dead\\n"', status=255),
    perl("perl-system", 'system("echo from system; exit 2"); print $? >> 8, "\\n"'),
    perl("perl-fork", "my $pid = fork; if (!$pid) { print qq(child\\n); exit 0 } waitpid($pid, 0); print qq(reaped $?\\n)"),
    perl("perl-json", 'use JSON::PP; print JSON::PP->new->canonical->encode({a=>1,b=>[1,2]}), "\\n"'),
    perl("perl-sha", 'use Digest::SHA qw(sha256_hex); print sha256_hex("abc"), "\\n"'),
    perl("perl-backticks", 'print `ls sub`'),
    Command("perl-inplace", ["/usr/bin/perl", "-i", "-pe", "s/apple/APPLE/", "words.txt"]),
    perl("perl-write", 'open(my $f, ">", "p.txt") or die; print $f "x\\n"; close $f'),
    perl("perl-dumper", 'use Data::Dumper; $Data::Dumper::Sortkeys = 1; print Dumper({x => [1, 2]})'),
    perl("perl-env", 'print "$_=$ENV{$_}\\n" for sort keys %ENV', filters=(ENV_LINES,)),
    perl("perl-env-count", 'print scalar(keys %ENV), "\\n"', expect_diff={"stdout": ENV_COUNT}),
    perl("perl-exec", 'exec "echo", "exec from perl"'),
])

NODE_JS = group("node", [
    node("node-log", "console.log(1 + 1)"),
    node("node-exit", "process.exit(3)", status=3),
    node("node-stderr", 'console.error("to stderr")'),
    node("node-write", "require('fs').writeFileSync('n.txt', 'x\\n')"),
    node("node-execsync", "console.log(require('child_process').execSync('echo child').toString().trim())"),
    node("node-spawnsync", "console.log(require('child_process').spawnSync('sh', ['-c', 'exit 2']).status)"),
    node("node-kill-term", "process.kill(process.pid, 'SIGTERM')", status=-15),
    node("node-os", "console.log(require('os').platform(), require('os').EOL.length)"),
    node("node-worker", "const { Worker } = require('worker_threads');"
                        " new Worker('console.log(\"worker\")', { eval: true })"),
    node("node-timeout", "setTimeout(() => console.log('later'), 50)"),
    node("node-throw", "throw new Error('boom')", status=1),
    node("node-crypto", "console.log(require('crypto').createHash('sha256').update('abc').digest('hex'))"),
])

PYTHON = group("python", [
    py("py-hello", 'print("hello")'),
    py("py-sys-exit", "import sys; sys.exit(3)", status=3),
    py("py-json", 'import json; print(json.dumps(json.load(open("data.json")), sort_keys=True))'),
    py("py-hashlib", 'import hashlib; print(hashlib.sha256(open("words.txt", "rb").read()).hexdigest())'),
    py("py-sqlite", 'import sqlite3; c = sqlite3.connect(":memory:"); print(c.execute("select 6*7").fetchone())'),
    py("py-sqlite-file", 'import sqlite3; c = sqlite3.connect("db.sqlite"); c.execute("create table t(x)");'
                         ' c.execute("insert into t values (1)"); c.commit(); print("ok")'),
    py("py-ssl", "import ssl; print(ssl.OPENSSL_VERSION.split()[0])"),
    py("py-ctypes-libc", 'import ctypes; print(ctypes.CDLL("libc.so.6").abs(-3))'),
    py("py-ctypes-find", 'import ctypes.util; print(ctypes.util.find_library("m"))'),
    py("py-decimal", "from decimal import Decimal; from fractions import Fraction;"
                     " print(Decimal(1) / 7, Fraction(3, 9))"),
    py("py-statistics", "import statistics as s; print(s.mean([1, 2, 3, 4]), s.median([5, 1, 3]))"),
    py("py-collections", "import collections; print(collections.Counter(open('words.txt').read().split()).most_common(2))"),
    py("py-re", r"import re; print(re.findall(r'\b\w{5}\b', open('words.txt').read()))"),
    py("py-datetime", "import datetime; print(datetime.datetime(2024, 2, 29) + datetime.timedelta(days=1))"),
    py("py-compress", "import zlib, bz2, lzma; d = b'x' * 1000;"
                      " print(len(zlib.compress(d)), len(bz2.compress(d)), len(lzma.decompress(lzma.compress(d))))"),
    py("py-gzip-file", "import gzip; f = gzip.GzipFile('w.gz', 'wb', mtime=0); f.write(b'hi'); f.close()"),
    py("py-csv", "import csv; print([r['city'] for r in csv.DictReader(open('data.csv'))])"),
    py("py-xml", "import xml.etree.ElementTree as E; print(E.tostring(E.fromstring('<a><b>t</b></a>').find('b')))"),
    py("py-email", "from email.message import EmailMessage; m = EmailMessage(); m['To'] = 'x@y'; print(m['To'])"),
    py("py-uuid5", "import uuid; print(uuid.uuid5(uuid.NAMESPACE_DNS, 'example.com'))"),
    py("py-uuid4", "import uuid; print(uuid.uuid4())", note="nondeterministic on purpose"),
    py("py-random-seed", "import random; random.seed(1); print(random.random())"),
    py("py-threads", "import threading; r = []; ts = [threading.Thread(target=r.append, args=(i,)) for i in range(4)];"
                     " [t.start() for t in ts]; [t.join() for t in ts]; print(sorted(r))"),
    py("py-threadpool", "from concurrent.futures import ThreadPoolExecutor as P;"
                        " print(list(P(4).map(abs, [-1, -2, 3])))"),
    py("py-asyncio", "import asyncio\nasync def f(): await asyncio.sleep(0.01); return 5\nprint(asyncio.run(f()))"),
    py("py-socketpair", "import socket; a, b = socket.socketpair(); a.send(b'ping'); print(b.recv(4))"),
    py("py-tempfile", "import tempfile; f = tempfile.NamedTemporaryFile(); f.write(b'x'); f.flush(); print('ok')"),
    py("py-shutil", "import shutil; shutil.copytree('sub', 'sub-copy'); print(sorted(__import__('os').listdir('sub-copy')))"),
    py("py-pathlib", "import pathlib; print(sorted(str(p) for p in pathlib.Path('.').rglob('*.txt')))"),
    py("py-fork", "import os\npid = os.fork()\nif pid == 0:\n    print('child'); os._exit(0)\n"
                  "os.waitpid(pid, 0); print('parent')"),
    py("py-signal-handler", "import os, signal; signal.signal(signal.SIGUSR1, lambda *a: print('handled'));"
                            " os.kill(os.getpid(), signal.SIGUSR1); print('after')"),
    py("py-atexit", "import atexit; atexit.register(print, 'atexit ran'); print('main')"),
    py("py-systemexit-msg", 'raise SystemExit("bye")', status=1),
    py("py-traceback", 'raise ValueError("boom")', status=1),
    py("py-rlimit", "import resource; print(resource.getrlimit(resource.RLIMIT_NOFILE))"),
    py("py-proc-fds", "import os; print(sorted(os.listdir('/proc/self/fd')))"),
    py("py-faulthandler", "import faulthandler; faulthandler.enable(); print('ok')"),
    py("py-readline", "import readline, curses; print('ok')"),
    py("py-locale", "import locale; print(locale.getpreferredencoding())"),
    py("py-env-keys", "import os; print('\\n'.join(sorted(os.environ)))",
       filters=(Filter("^" + GT_VARS + "$", ENV_LINES.reason),)),
    py("py-env-count", "import os; print(len(os.environ))", expect_diff={"stdout": ENV_COUNT}),
    py("py-maps", "print(sum('libgputrace' in l for l in open('/proc/self/maps')))",
       expect_diff={"stdout": MAPS}),
    Command("py-script", [PY, "tool.py", "5"]),
    py("py-import-local", "import tool; print(tool.square_sum(4))"),
    Command("py-m-json-tool", [PY, "-m", "json.tool", "--sort-keys", "data.json"]),
    Command("py-m-compileall", [PY, "-m", "compileall", "-q", "."]),
    Command("py-m-zipfile", [PY, "-m", "zipfile", "-c", "z.zip", "words.txt"]),
    Command("py-m-tarfile", [PY, "-m", "tarfile", "-l", "/dev/null"], status=1),
    Command("py-m-base64", [PY, "-m", "base64", "numbers.txt"]),
    Command("py-m-venv", [PY, "-m", "venv", "--without-pip", "venv"]),
    Command("py-isolated", [PY, "-I", "-S", "-c", "import sys; print(len(sys.path) > 0)"]),
    Command("py-importtime", [PY, "-X", "importtime", "-c", "pass"], note="stderr has times"),
    Command("py-stdin", [PY, "-"], stdin="print(sum(range(10)))\n"),
    py("py-sysconfig", "import sysconfig; print(sysconfig.get_config_var('SOABI'))"),
    py("py-platform", "import platform; print(platform.system(), platform.machine())"),
    # Probing for an optional library and going on without it is ordinary.
    py("py-optional-lib", "import ctypes\ntry:\n    ctypes.CDLL('libnot-here.so.1')\n"
                          "except OSError:\n    print('fallback')"),
    py("py-missing-lib", "import ctypes; ctypes.CDLL('libnot-here.so.1')", status=1,
       allow_errors={"library-not-found": "it really fails because the library is missing"}),
])

PYTHON_DEBIAN = group("python-debian", [
    py("np-basic", "import numpy as np; a = np.arange(12).reshape(3, 4); print(a.sum(axis=0), a.T.shape)",
       needs=(DIST + "numpy",)),
    py("np-linalg", "import numpy as np; m = np.array([[2., 1.], [1., 3.]]); print(np.round(np.linalg.inv(m), 4))",
       needs=(DIST + "numpy",)),
    py("np-random", "import numpy as np; print(np.random.default_rng(7).integers(0, 100, 5))",
       needs=(DIST + "numpy",)),
    py("np-save", "import numpy as np; np.save('a.npy', np.ones(3)); print(np.load('a.npy'))",
       needs=(DIST + "numpy",)),
    py("yaml", "import yaml; print(yaml.safe_dump(yaml.safe_load('a: [1, 2]\\nb: x'), sort_keys=True), end='')",
       needs=(DIST + "yaml",)),
    py("requests-import", "import requests; print(requests.__name__)", needs=(DIST + "requests",)),
    py("sympy", "import sympy; x = sympy.Symbol('x'); print(sympy.expand((x + 1)**3))", needs=(DIST + "sympy",)),
    py("cryptography", "from cryptography.hazmat.primitives import hashes; h = hashes.Hash(hashes.SHA256());"
                       " h.update(b'abc'); print(h.finalize().hex())", needs=(DIST + "cryptography",)),
    py("jsonschema", "import jsonschema; jsonschema.validate(3, {'type': 'integer'}); print('valid')",
       needs=(DIST + "jsonschema",)),
    py("idna", "import idna; print(idna.encode('b\\u00fccher.example'))", needs=(DIST + "idna",)),
    py("chardet", "import chardet; print(chardet.detect(b'hello')['encoding'])", needs=(DIST + "chardet",)),
    py("six-attr", "import six, attr; print(six.PY3, attr.__name__)", needs=(DIST + "six.py", DIST + "attr")),
])

TORCH = group("torch", [
    py("torch-import", "import torch; print(torch.__version__)", needs=(DIST + "torch",)),
    py("torch-cuda", "import torch; print(torch.cuda.is_available(), torch.backends.cudnn.version())",
       needs=(DIST + "torch",)),
    py("torch-linear", "import torch; torch.manual_seed(0); l = torch.nn.Linear(3, 2);"
                       " print(l(torch.ones(1, 3)).detach().numpy().round(4))", needs=(DIST + "torch",)),
    py("torch-conv", "import torch; torch.manual_seed(0); c = torch.nn.Conv2d(1, 1, 3);"
                     " print(round(c(torch.ones(1, 1, 5, 5)).sum().item(), 3))", needs=(DIST + "torch",)),
])

MULTIPROCESSING = group("multiprocessing", [
    Command("mp-fork-pool", [PY, "mp_work.py", "fork"]),
    Command("mp-spawn-pool", [PY, "mp_work.py", "spawn"]),
    Command("mp-forkserver-pool", [PY, "mp_work.py", "forkserver"]),
    py("mp-process", "import multiprocessing as m\np = m.Process(target=print, args=('in child',))\n"
                     "p.start(); p.join(); print('exitcode', p.exitcode)"),
    py("mp-process-exit", "import multiprocessing as m, sys\np = m.Process(target=sys.exit, args=(5,))\n"
                          "p.start(); p.join(); print('exitcode', p.exitcode)"),
    py("mp-queue", "import multiprocessing as m\nq = m.Queue()\np = m.Process(target=q.put, args=(42,))\n"
                   "p.start(); print(q.get()); p.join()"),
    py("mp-processpool", "from concurrent.futures import ProcessPoolExecutor as P\n"
                         "with P(2) as p: print(list(p.map(abs, [-1, -2, -3])))"),
    py("mp-terminate", "import multiprocessing as m, time\n"
                       "p = m.Process(target=time.sleep, args=(5,))\np.start(); p.terminate(); p.join();"
                       " print(p.exitcode)"),
])

SUBPROCESS = group("subprocess", [
    py("os-system", "import os; print(os.system('echo via system; exit 3') >> 8)"),
    py("os-system-pipe", "import os; os.system('seq 3 | tac')"),
    py("subprocess-shell", "import subprocess; print(subprocess.run('echo a | tr a b', shell=True,"
                           " capture_output=True, text=True).stdout, end='')"),
    py("subprocess-check-output", "import subprocess; print(subprocess.check_output(['ls', 'sub']).decode(), end='')"),
    py("subprocess-popen", "import subprocess; p = subprocess.Popen(['cat'], stdin=subprocess.PIPE,"
                           " stdout=subprocess.PIPE); print(p.communicate(b'piped')[0])"),
    py("subprocess-fail", "import subprocess; subprocess.run(['false'], check=True)", status=1),
    py("os-popen", "import os; print(os.popen('date -u -d @0 +%Y').read().strip())"),
    py("os-execvp", "import os; os.execvp('echo', ['echo', 'exec from python'])"),
    py("os-posix-spawn", "import os; pid = os.posix_spawn('/bin/echo', ['echo', 'spawned'], os.environ);"
                         " print(os.waitpid(pid, 0)[1])"),
    py("subprocess-sh-pipeline", "import subprocess; subprocess.run('yes | head -n 2', shell=True)"),
])


def usr1_parent_wrapper():
    """A parent that survives SIGUSR1 (a handler, reset at exec, so the child
    keeps the default action) and says how its child ended: the harness's
    stand-in for a parent that can take the signal."""
    code = ("import signal, subprocess, sys\n"
            "signal.signal(signal.SIGUSR1, lambda *a: None)\n"
            "r = subprocess.run(sys.argv[1:])\n"
            "print('child', r.returncode)\n")
    return [PY, "-c", code]


SIGNAL = group("signal", [
    sh("sh-kill-term", "kill -TERM $$", status=-15),
    bash("bash-kill-term", "kill -TERM $$", status=-15),
    sh("sh-kill-segv", "kill -SEGV $$", status=-11, allow_errors=CRASH_SEGV),
    bash("bash-kill-segv", "kill -SEGV $$", status=-11, allow_errors=CRASH_SEGV),
    sh("sh-kill-abrt", "kill -ABRT $$", status=-6, allow_errors=CRASH_ABRT),
    sh("sh-kill-int", "kill -INT $$", status=-2),
    sh("sh-kill-hup", "kill -HUP $$", status=-1),
    sh("sh-kill-kill", "kill -KILL $$", status=-9, allow_errors=CRASH_KILL),
    py("py-kill-term", "import os, signal; os.kill(os.getpid(), signal.SIGTERM)", status=-15),
    py("py-segv", "import ctypes; ctypes.string_at(0)", status=-11, allow_errors=CRASH_SEGV),
    py("py-abort", "import os; os.abort()", status=-6, allow_errors=CRASH_ABRT),
    sh("sh-trap-term", 'trap "echo caught TERM" TERM; kill -TERM $$; echo after'),
    sh("sh-kill-child", 'sleep 5 & kill $!; wait $!; echo "child $?"'),
    sh("sh-trap-ignore-int", 'trap "" INT; kill -INT $$; echo ignored'),
    Command("nohup-hup", ["nohup", "sh", "-c", "kill -HUP $$; echo survived HUP"]),
    run("timeout-term", "timeout 0.3 sleep 5", status=124),
    # timeout ends itself with the signal that ended its child.
    run("timeout-kill", "timeout -s KILL 0.3 sleep 5", status=-9, allow_errors=CRASH_KILL),
    sh("sh-kill-usr1-parent", "kill -USR1 $PPID; sleep 0.2; echo not killed", wrapper=usr1_parent_wrapper(),
       note="the parent is the wrapper bare and gputrace's launcher traced: the command itself must "
            "not be killed"),
    sh("sh-sigpipe-self", "kill -PIPE $$", status=-13),
])

EXIT = group("exit", [
    py("py-_exit-3", "import os; os._exit(3)", status=3),
    py("py-_exit-0", "import os; os._exit(0)"),
    py("py-_exit-unflushed", "import os, sys; print('lost in the buffer'); os._exit(0)"),
    py("py-_exit-thread", "import os, threading; t = threading.Thread(target=os._exit, args=(6,));"
                          " t.start(); t.join()", status=6),
    sh("sh-exit-0", "exit 0"),
    sh("sh-exit-255", "exit 255", status=255),
    sh("sh-exec-exit", "exec sh -c 'exit 9'", status=9),
    sh("sh-subshell-exit", "(exit 3); echo $?"),
    sh("sh-fork-exit", "sh -c 'exit 2' & wait $!; echo $?"),
    bash("bash-exit-trap", "trap 'echo in exit trap' EXIT; exit 4", status=4),
    # The same ends one process down, where the launcher records no status.
    sh("sh-py-_exit", PY + " -c 'import os; os._exit(3)'; echo rc=$?"),
    bash("bash-py-_exit", PY + " -c 'import os; os._exit(0)'; echo rc=$?"),
    sh("sh-perl-_exit", "perl -MPOSIX -e 'POSIX::_exit(2)'; echo rc=$?"),
    sh("sh-child-term", "sh -c 'kill -TERM $$'; echo rc=$?"),
    bash("bash-child-segv", "bash -c 'kill -SEGV $$'; echo rc=$?", allow_errors=CRASH_SEGV),
])

ENV_STATE = group("env-state", [
    sh("sh-env-i", "env -i /bin/true"),
    bash("bash-env-i", "env -i /bin/true; echo rc=$?"),
    run("env-i-direct", "env -i /bin/sh -c 'echo $PATH; env'"),
    sh("sh-env-i-sh", "env -i PATH=/usr/bin sh -c 'echo clean; env | sort'"),
    run("ldd-ls", "ldd /bin/ls", filters=(LDD_GT,), note="addresses: nondeterministic"),
    sh("ldd-names", "ldd /bin/ls | sed 's/ (0x[0-9a-f]*)//'", filters=(LDD_GT,)),
    sh("ldd-python", "ldd " + PY + " | awk '{print $1}'", filters=(LDD_GT,)),
    run("env-print", "env", filters=(ENV_LINES,)),
    sh("sh-env-sort", "env | sort", filters=(ENV_LINES,)),
    run("printenv-all", "printenv", filters=(ENV_LINES,)),
    sh("sh-export-p", "export -p", filters=(ENV_LINES,)),
    bash("bash-declare-x", "declare -x", filters=(ENV_LINES,)),
    sh("sh-environ", "tr '\\0' '\\n' < /proc/self/environ | sort", filters=(ENV_LINES,)),
    run("maps-lines", "wc -l /proc/self/maps", expect_diff={"stdout": MAPS}),
    sh("maps-grep", "grep -c gputrace /proc/self/maps",
       status=1, expect_diff={"stdout": MAPS, "status": MAPS}),
    sh("sh-unset-preload", 'unset LD_PRELOAD LD_AUDIT; sh -c "echo untraced child"'),
    sh("sh-empty-preload", "LD_PRELOAD= /bin/echo cleared"),
    sh("sh-ld-library-path", "LD_LIBRARY_PATH=/nonexistent ls sub"),
    sh("sh-ld-bind-now", "LD_BIND_NOW=1 ls sub"),
])

# Limits the program set for itself: the tracer's files and fds count against
# them, and must never be what ends the program.
LIMITS = group("limits", [
    sh("ulimit-f0-true", "ulimit -f 0; /bin/true",
       note="RLIMIT_FSIZE 0: the program writes no file, the tracer's must not raise SIGXFSZ"),
    sh("ulimit-f0-ls", "ulimit -f 0; echo hi; ls sub"),
    bash("ulimit-f1-python", "ulimit -f 1; " + PY + " -c 'print(1)'"),
    sh("ulimit-f-write", "ulimit -f 1; head -c 2000 /dev/zero > big; echo rc=$?; wc -c < big"),
    sh("ulimit-n4", "ulimit -n 4; cat words.txt numbers.txt"),
    bash("ulimit-n5-fd4", "ulimit -n 5; exec 4>f4; echo ok >&4; cat f4"),
    sh("ulimit-v", "ulimit -v 400000; ls sub"),
    sh("ulimit-c0", "ulimit -c 0; kill -SEGV $$", status=-11, allow_errors=CRASH_SEGV),
    py("py-closerange", "import os; os.closerange(3, 4096); print('closed')"),
    py("py-fd-limit", "import resource, os; resource.setrlimit(resource.RLIMIT_NOFILE, (8, 8));"
                      " fds = [os.open('words.txt', os.O_RDONLY) for _ in range(5)]; print(len(fds))"),
])

NVCC_CMDS = group("nvcc", [
    run("nvcc-version", NVCC + " --version", needs=(NVCC,)),
    sh("nvcc-compile", NVCC + " -cudart shared -o hello_cu hello.cu"
       " && readelf -d hello_cu | grep NEEDED | sed 's/.*\\[//; s/\\]//' | sort", needs=(NVCC,), timeout=120),
])

TOOLS = group("tools", [
    run("jq-sort", "jq -c '.items | sort' data.json"),
    run("jq-raw", "jq -r .name data.json"),
    run("jq-error", "jq .x", stdin="not json", status=4),
    run("sqlite3-mem", "sqlite3 :memory: 'select 1+1; select upper(\"x\");'"),
    sh("sqlite3-file", "sqlite3 t.db 'create table t(x); insert into t values (3);' && sqlite3 t.db 'select * from t'"),
    run("bc", "bc -l", stdin="scale=5; 4*a(1)\n"),
    run("awk-nr", "awk '{print NR\": \"$0}' words.txt"),
    run("awk-sum", "awk -F, 'NR > 1 { s += $2 } END { print s }' data.csv"),
    run("sed-p", "sed -n 2,4p words.txt"),
    run("sed-i", "sed -i s/apple/APPLE/g words.txt"),
    run("grep-n", "grep -n an words.txt"),
    run("grep-c", "grep -c apple words.txt"),
    run("grep-r", "grep -r deep ."),
    run("grep-none", "grep zzz words.txt", status=1),
    run("grep-E", "grep -E '^(a|b)' words.txt"),
    sh("find-type", "find . -type f | sort"),
    sh("find-exec", "find sub -name '*.txt' -exec wc -c {} + | sort"),
    run("xargs", "xargs echo got", stdin="a b\nc\n"),
    run("file-text", "file words.txt hello.c Makefile script.sh"),
    run("file-elf", "file -L /bin/ls"),
    run("readelf-h", "readelf -h /bin/ls"),
    run("objdump-f", "objdump -f /bin/true"),
    sh("nm-D", "nm -D /bin/true | head -5"),
    sh("strings", "strings -n 10 /bin/true | head -3"),
    run("size", "size /bin/true"),
    run("cxxfilt", "c++filt _ZN3foo3barEv _ZNSt6vectorIiSaIiEE9push_backERKi"),
    run("openssl-dgst", "openssl dgst -sha256 words.txt"),
    run("openssl-rand", "openssl rand -hex 8", note="nondeterministic on purpose"),
    run("openssl-version", "openssl version"),
    run("diff", "diff words.txt numbers.txt", status=1),
    run("diff-u", "diff -u words.txt words.txt"),
    run("cmp", "cmp words.txt numbers.txt", status=1),
    run("patch", "patch -p0 -i a.diff"),
    run("column", "column -t -s, data.csv"),
    run("envsubst", "envsubst", stdin="tz is $TZ\n"),
    sh("ldconfig-p", "ldconfig -p | head -1"),
    run("xxd", "xxd numbers.txt"),
    run("hexdump", "hexdump -C numbers.txt"),
    run("cmake-version", "cmake --version", needs=("/usr/bin/cmake",)),
    run("pkg-config", "pkg-config --modversion zlib"),
    run("gdb-batch", "gdb -q -batch -ex 'print 6*7'", needs=("/usr/bin/gdb",)),
    run("flock", "flock lockfile echo locked"),
    run("setsid", "setsid echo new session"),
    sh("ps-self", "ps -o comm= -p $$"),
    run("pgrep-none", "pgrep -x no-such-process-name", status=1),
    run("ed", "ed -s words.txt", stdin=",p\nq\n"),
    run("less-cat", "less words.txt"),
    run("curl-version", "curl --version", needs=("/usr/bin/curl",)),
    run("git-help", "git help -a --no-verbose"),
    run("tar-version", "tar --version"),
    sh("make-version", "make --version | head -1"),
    run("strace", "strace -f -o /dev/null /bin/echo traced twice", needs=("/usr/bin/strace",)),
    run("valgrind", "valgrind -q /bin/echo under valgrind", needs=("/usr/bin/valgrind",), timeout=120,
        note="valgrind runs the program on its own loader: no trace file"),
    run("script-pty", "script -qc 'echo in a pty' /dev/null"),
    run("gdb-run", "gdb -q -batch -ex run --args /bin/echo under gdb", needs=("/usr/bin/gdb",),
        note="gdb starts the program through $SHELL"),
    run("static-ldconfig", "/sbin/ldconfig --version", note="a static program: no trace file"),
])

COMMANDS = (COREUTILS + SHELL_DASH + SHELL_BASH + PIPELINE + MAKE + GIT + ARCHIVE + COMPILE + PERL
            + NODE_JS + PYTHON + PYTHON_DEBIAN + TORCH + MULTIPROCESSING + SUBPROCESS + SIGNAL
            + EXIT + ENV_STATE + LIMITS + NVCC_CMDS + TOOLS)

CATEGORIES = sorted({c.category for c in COMMANDS})
