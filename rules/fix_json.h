/* A typed fix (rules/fix.h) as the JSON of a finding's "fix_data", both
 * ways, and nowhere else. The shape (schema/finding.schema.json, a contract
 * scripts rely on):
 *   {"env": {"LD_LIBRARY_PATH": {"remove": ["/dir"], "append": ["/dir"]},
 *            "unset": ["LD_PRELOAD"], "set": {"CUDA_VISIBLE_DEVICES": "0"}}}
 *   {"install": "pip install ..."}   (named, never run) */
#ifndef GPUTRACE_FIX_JSON_H
#define GPUTRACE_FIX_JSON_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "rules/fix.h"

/* The fix's "fix_data" object, keys in the order the edits were first
 * added; NULL for an empty fix (no "fix_data" at all). */
json_t *gt_fix_to_json(const struct gt_fix *fix);

/* Reads a "fix_data" object into *out (emptied first). Strict: a known key
 * of the wrong type, a list variable with neither "remove" nor "append", a
 * name that is not a variable's, a string too long or more edits than a fix
 * holds is an error: false, *out empty, and the reason (with where:
 * "env.LD_LIBRARY_PATH.remove[1]: ...") in err. A key this gputrace does
 * not know (a kind of edit of a newer one) is no error: it is left out of
 * *out, never applied, and named in skipped ("" when none). */
bool gt_fix_from_json(json_t *fix_data, struct gt_fix *out, char *skipped, size_t skipcap, char *err,
		      size_t errcap);

#endif
