"""The finding table of include/gputrace/findings.h, as the tests read it:
the JSON schema's id enum, the man page's sections, the severities every
document a test parses may carry (tests/e2e/schemas.py) and the tests' own
id lists are checked against it, never kept apart by hand."""
import collections
import os
import re

HEADER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "include", "gputrace",
                      "findings.h")
SEVERITIES = ("info", "warning", "error")  # lowest first, as enum gt_severity
Row = collections.namedtuple("Row", "enum id lowest highest title anchor")
_ROW = re.compile(r'X\(\s*(\w+),\s*"([^"]+)",\s*(INFO|WARNING|ERROR),\s*(INFO|WARNING|ERROR),\s*'
                  r'"([^"]*)",\s*"([^"]*)"\s*\)')


def _read():
    with open(HEADER) as f:
        text = f.read()
    body = text[text.index("#define GT_FINDINGS(X)"):]
    body = body[:body.index("\n\n")].replace("\\\n", " ")
    rows = [Row(m.group(1), m.group(2), m.group(3).lower(), m.group(4).lower(), m.group(5), m.group(6))
            for m in _ROW.finditer(body)]
    if len(rows) != body.count("X("):
        raise AssertionError("%s: a row of GT_FINDINGS that this reader does not understand" % HEADER)
    return rows


ROWS = _read()
IDS = [r.id for r in ROWS]
BY_ID = {r.id: r for r in ROWS}


def allowed(fid, severity):
    """Whether the table allows this severity for this id."""
    r = BY_ID.get(fid)
    if r is None or severity not in SEVERITIES:
        return False
    return SEVERITIES.index(r.lowest) <= SEVERITIES.index(severity) <= SEVERITIES.index(r.highest)
