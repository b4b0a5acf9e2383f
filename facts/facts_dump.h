/* The facts file's JSON, written in one pass into memory: compact, each
 * object's keys sorted (the file is the same for the same answers). Reads
 * back equal (json_equal) to what was dumped, the same bytes as jansson's
 * compact, sorted dump; jansson's own json_dumpf took 0.7-1.1 ms here for
 * the 71 KB of the H200's import torch answers, this 0.32-0.42 ms (bench/
 * README.md section 17): it checks every string code point by code point. */
#ifndef GPUTRACE_FACTS_DUMP_H
#define GPUTRACE_FACTS_DUMP_H

#include <jansson.h>
#include <stddef.h>

/* doc as JSON text with a newline at its end, malloc'd (its length in
 * *len); NULL where doc holds a value that is no JSON (a NaN real). */
char *gt_facts_dump(const json_t *doc, size_t *len);

#endif
