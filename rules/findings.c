/* Findings and their evidence (see findings.h). */
#define _GNU_SOURCE
#include "rules/findings.h"
#include "rules/fix_command.h"

#include "common/jline.h"
#include "common/xalloc.h"
#include "rules/fix_json.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *vformat(const char *fmt, va_list ap)
{
	char *s = NULL;

	if (vasprintf(&s, fmt, ap) < 0)
		abort();
	return s;
}

/* The table of include/gputrace/findings.h, one row per enum value. */
static const struct {
	const char *name, *title, *anchor;
	enum gt_severity lowest, highest;
} table[] = {
#define GT_FINDING_ROW(sym, id, lo, hi, title, anchor) { id, title, anchor, GT_SEV_##lo, GT_SEV_##hi },
	GT_FINDINGS(GT_FINDING_ROW)
#undef GT_FINDING_ROW
};

const char *gt_finding_name(enum gt_finding_id id)
{
	return (unsigned)id < GT_F_COUNT ? table[id].name : "unknown";
}

const char *gt_finding_title(enum gt_finding_id id)
{
	return (unsigned)id < GT_F_COUNT ? table[id].title : "";
}

const char *gt_finding_anchor(enum gt_finding_id id)
{
	return (unsigned)id < GT_F_COUNT ? table[id].anchor : "";
}

enum gt_finding_id gt_finding_from_name(const char *name)
{
	int i;

	for (i = 0; name && i < GT_F_COUNT; i++)
		if (strcmp(name, table[i].name) == 0)
			return (enum gt_finding_id)i;
	return GT_F_COUNT;
}

bool gt_finding_severity_allowed(enum gt_finding_id id, enum gt_severity sev)
{
	return (unsigned)id < GT_F_COUNT && sev >= table[id].lowest && sev <= table[id].highest;
}

struct gt_finding *gt_finding_add(struct gt_findings *f, enum gt_finding_id id, enum gt_severity sev,
				  const struct gt_proc_model *m, const char *fix, const char *fmt, ...)
{
	struct gt_finding *x;
	va_list ap;

	f->v = gt_xrealloc(f->v, (f->n + 1) * sizeof(*f->v));
	x = &f->v[f->n++];
	memset(x, 0, sizeof(*x));
	x->id = id;
	x->severity = sev;
	x->proc = m;
	x->fix = gt_xstrdup(fix ? fix : "");
	x->evidence = json_array();
	va_start(ap, fmt);
	x->summary = vformat(fmt, ap);
	va_end(ap);
	return x;
}

json_t *gt_evidence_add(struct gt_finding *f, const char *fmt, ...)
{
	json_t *e = json_object();
	char *what;
	va_list ap;

	va_start(ap, fmt);
	what = vformat(fmt, ap);
	va_end(ap);
	json_object_set_new(e, "what", json_string(what));
	free(what);
	json_array_append_new(f->evidence, e);
	return e;
}

/* The bytes of value with U+FFFD for each byte that is not UTF-8. */
static char *utf8_lossy(const char *value, size_t n)
{
	char *out = malloc(3 * n + 1), *o = out;
	size_t i = 0, len;

	if (!out)
		abort();
	while (i < n) {
		len = jl_utf8_seq_len((const unsigned char *)value + i, n - i);
		if (len) {
			memcpy(o, value + i, len);
			o += len;
			i += len;
		} else {
			memcpy(o, "\xef\xbf\xbd", 3);
			o += 3;
			i++;
		}
	}
	*o = 0;
	return out;
}

json_t *gt_json_text(const char *value)
{
	json_t *s = json_string(value);
	char *lossy;

	if (s || !value)
		return s ? s : json_null();
	lossy = utf8_lossy(value, strlen(value));
	s = json_string(lossy);
	free(lossy);
	return s;
}

/* jansson wants UTF-8; a path that is not keeps its bytes in "<key>_hex", as
 * in the trace format. */
void gt_evidence_str(json_t *e, const char *key, const char *value)
{
	json_t *s;
	char hexkey[64], *hex, *lossy;
	size_t i, n;

	if (!value)
		return;
	s = json_string(value);
	if (s) {
		json_object_set_new(e, key, s);
		return;
	}
	n = strlen(value);
	hex = gt_xmalloc(2 * n + 1);
	for (i = 0; i < n; i++)
		sprintf(hex + 2 * i, "%02x", (unsigned char)value[i]);
	snprintf(hexkey, sizeof(hexkey), "%s_hex", key);
	json_object_set_new(e, hexkey, json_string(hex));
	lossy = utf8_lossy(value, n);
	json_object_set_new(e, key, json_string(lossy));
	free(lossy);
	free(hex);
}

void gt_evidence_int(json_t *e, const char *key, long long value)
{
	json_object_set_new(e, key, json_integer(value));
}

void gt_evidence_lib(json_t *e, const struct gt_lib *l)
{
	gt_evidence_str(e, "path", l->obj->path);
	gt_evidence_str(e, "component", l->fi.component);
	if (l->version[0])
		gt_evidence_str(e, "version", l->version);
	gt_evidence_str(e, "version_source", l->version_source);
	gt_evidence_str(e, "rule", gt_rule_name_or_null(l->found_by));
	gt_evidence_str(e, "requester", l->obj->requester);
}

void gt_evidence_tries(json_t *e, const struct gt_search *s)
{
	json_t *arr = json_array();
	size_t i;

	for (i = 0; i < s->ntries; i++) {
		json_t *t = json_object();

		gt_evidence_str(t, "path", s->tries[i].path);
		gt_evidence_str(t, "rule", gt_rule_name_or_null(s->tries[i].rule));
		json_array_append_new(arr, t);
	}
	json_object_set_new(e, "tried", arr);
}

json_t *gt_finding_json(const struct gt_finding *x)
{
	json_t *o = json_object();
	char cmd[16384];

	json_object_set_new(o, "id", json_string(gt_finding_name(x->id)));
	json_object_set_new(o, "severity", json_string(gt_severity_name(x->severity)));
	gt_evidence_str(o, "summary", x->summary);
	json_object_set_new(o, "evidence", json_incref(x->evidence));
	gt_evidence_str(o, "fix", x->fix);
	if (x->fix_data.n)
		json_object_set_new(o, "fix_data", gt_fix_to_json(&x->fix_data));
	/* the fix as a command to paste, or why none can be right (issue 30,
	 * rules/fix_command.c): added, no field renamed */
	if (gt_fix_paste(x->id, x->evidence, &x->fix_data, x->proc, cmd, sizeof(cmd)))
		gt_evidence_str(o, "command", cmd);
	else if (cmd[0])
		gt_evidence_str(o, "no_command", cmd);
	return o;
}

json_t *gt_findings_json(const struct gt_findings *f)
{
	json_t *arr = json_array();
	size_t i;

	for (i = 0; f && i < f->n; i++)
		json_array_append_new(arr, gt_finding_json(&f->v[i]));
	return arr;
}

const struct gt_finding *gt_findings_find(const struct gt_findings *f, enum gt_finding_id id,
					  const struct gt_proc_model *m)
{
	size_t i;

	for (i = 0; i < f->n; i++)
		if (f->v[i].id == id && (!m || f->v[i].proc == m))
			return &f->v[i];
	return NULL;
}

void gt_findings_free_last(struct gt_findings *f, size_t keep)
{
	while (f->n > keep) {
		struct gt_finding *x = &f->v[--f->n];

		free(x->summary);
		free(x->fix);
		gt_fix_free(&x->fix_data);
		json_decref(x->evidence);
	}
}

void gt_findings_free(struct gt_findings *f)
{
	size_t i;

	for (i = 0; i < f->n; i++) {
		free(f->v[i].summary);
		free(f->v[i].fix);
		gt_fix_free(&f->v[i].fix_data);
		json_decref(f->v[i].evidence);
	}
	free(f->v);
	f->v = NULL;
	f->n = 0;
}

const char *gt_severity_name(enum gt_severity s)
{
	return s == GT_SEV_ERROR ? "error" : s == GT_SEV_WARNING ? "warning" : "info";
}
