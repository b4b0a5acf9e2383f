"""The JSON Schemas of schema/, applied to every JSON document the e2e tests
parse: the `json.loads` of the test process is wrapped (install()), so that
each gputrace report, scan or doctor object and each trace line a test reads
is validated, whatever test reads it. A schema error fails that test, and so
does a finding whose severity the finding table (include/gputrace/findings.h)
does not allow its id: every scenario of every test holds the rules to it."""
import collections
import glob
import json
import os
import threading

import jsonschema

from tests.e2e import finding_table

SCHEMA_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "schema")
# The document's "format" key, or a trace line's "ev" key, picks its schema.
BY_FORMAT = {"gputrace-report": "report", "gputrace-scan": "scan", "gputrace-doctor": "doctor",
             "gputrace-diff": "diff", "gputrace-fleet": "fleet", "gputrace-retry": "retry",
             "gputrace-facts": "facts"}

# How many documents of each kind were validated (test_schemas checks it grows).
validated = collections.Counter()

_real_loads = json.loads
_validators = {}


def _load_all():
    store = {}
    for path in glob.glob(os.path.join(SCHEMA_DIR, "*.schema.json")):
        with open(path) as f:
            s = _real_loads(f.read())
        store[s["$id"]] = s
        store[os.path.basename(path)[:-len(".schema.json")]] = s
    return store


_build_lock = threading.Lock()


def validator(name):
    """The validator of schema/<name>.schema.json (trace-line, report, ...).
    Built once, under a lock: tests that read reports from several threads
    (tests/e2e/test_real_commands.py) would otherwise see a half-filled table."""
    with _build_lock:
        if not _validators:
            _build_all()
    return _validators[name]


def _build_all():
    store = _load_all()
    for key, s in list(store.items()):
        if "/" in key:
            continue
        cls = jsonschema.validators.validator_for(s)
        cls.check_schema(s)
        resolver = jsonschema.RefResolver(s["$id"], s, store={k: v for k, v in store.items() if "/" in k})
        _validators[key] = cls(s, resolver=resolver)


def kind_of(obj):
    """Which schema a parsed document answers to, or None for JSON that is
    none of gputrace's (a test's own data, a framework's)."""
    if not isinstance(obj, dict):
        return None
    if obj.get("format") in BY_FORMAT:
        return BY_FORMAT[obj["format"]]
    if isinstance(obj.get("ev"), str):
        return "trace-line"
    return None


def findings_in(node, path=""):
    """(path, finding) for every object under node with an "id" of the
    finding table and a "severity": a report's, a scan's, a diff's ... ."""
    if isinstance(node, dict):
        if node.get("id") in finding_table.BY_ID and isinstance(node.get("severity"), str):
            yield path, node
        for k, v in node.items():
            yield from findings_in(v, path + "/" + str(k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from findings_in(v, "%s/%d" % (path, i))


def check(obj, kind=None):
    """Raises AssertionError naming every schema error of obj, and every
    finding with a severity its id's row of the finding table does not allow."""
    kind = kind or kind_of(obj)
    if kind is None:
        return
    errors = sorted(validator(kind).iter_errors(obj), key=lambda e: list(e.absolute_path))
    if errors:
        lines = ["%s at /%s: %s" % (kind, "/".join(map(str, e.absolute_path)), e.message) for e in errors[:10]]
        raise AssertionError("JSON does not match schema/%s.schema.json:\n  %s" % (kind, "\n  ".join(lines)))
    wrong = ["%s at %s: %s is %s" % (kind, where or "/", f["id"], f["severity"])
             for where, f in findings_in(obj) if not finding_table.allowed(f["id"], f["severity"])]
    if wrong:
        raise AssertionError("severity outside the finding table (include/gputrace/findings.h):\n  %s"
                             % "\n  ".join(wrong[:10]))
    validated[kind] += 1


def _checked_loads(s, *args, **kw):
    obj = _real_loads(s, *args, **kw)
    check(obj)
    return obj


def install():
    json.loads = _checked_loads
