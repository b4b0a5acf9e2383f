/* The JSON report: the object documented in doc/design-notes.md and gputrace-report(1), for
 * scripts. Built with jansson, printed once. */
#include <string.h>

#include "read/failed_load.h"
#include "render/render.h"

static json_t *str_or_null(const char *s)
{
	json_t *v = s ? json_string(s) : NULL;

	return v ? v : json_null();
}

static json_t *lib_json(const struct gt_proc_model *m, const struct gt_lib *l)
{
	json_t *o = json_object(), *v = json_object(), *pkg = json_null();

	gt_evidence_str(o, "path", l->obj->path);
	if (l->real_path[0])
		gt_evidence_str(o, "real_path", l->real_path);
	json_object_set_new(o, "family", json_string(l->fi.family));
	json_object_set_new(o, "component", json_string(l->fi.component));
	json_object_set_new(o, "version", l->version[0] ? json_string(l->version) : json_null());
	json_object_set_new(o, "version_source", json_string(l->version_source));
	if (l->api_version[0])
		json_object_set_new(v, "api", json_string(l->api_version));
	if (l->file_version[0])
		json_object_set_new(v, "file", json_string(l->file_version));
	if (l->package_version[0])
		json_object_set_new(v, "package", json_string(l->package_version));
	/* The object whose call gave the answer, when it is not this one (cuDNN
	 * 9's front forwards to the graph library it loaded). */
	if (l->api_from && strcmp(l->api_from, l->obj->path) != 0)
		gt_evidence_str(v, "api_from", l->api_from);
	json_object_set_new(o, "versions", v);
	if (l->disagree)
		json_object_set_new(o, "versions_disagree", json_true());
	json_object_set_new(o, "copy", json_integer(m->copies[l->copy].number));
	json_object_set_new(o, "found_by", str_or_null(gt_rule_name_or_null(l->found_by)));
	json_object_set_new(o, "requester", json_null());
	gt_evidence_str(o, "requester", l->obj->requester);
	json_object_set_new(o, "name", json_null());
	gt_evidence_str(o, "name", l->obj->name);
	if (l->has_package) {
		pkg = json_object();
		json_object_set_new(pkg, "manager", json_string(l->package.manager));
		json_object_set_new(pkg, "name", json_string(l->package.name));
		json_object_set_new(pkg, "version", json_string(l->package.version));
	}
	json_object_set_new(o, "package", pkg);
	json_object_set_new(o, "ns", json_integer(l->obj->ns));
	return o;
}

/* The copies of each family: where, how many parts, who uses them, and
 * whether their symbols are visible to the whole process. */
static json_t *copies_json(const struct gt_proc_model *m)
{
	json_t *arr = json_array();
	size_t k;

	for (k = 0; k < m->ncopies; k++) {
		const struct gt_copy *c = &m->copies[k];
		json_t *o = json_object();

		json_object_set_new(o, "family", json_string(c->family));
		json_object_set_new(o, "copy", json_integer(c->number));
		gt_evidence_str(o, "folder", c->folder);
		json_object_set_new(o, "parts", json_integer((json_int_t)c->nparts));
		json_object_set_new(o, "scope", json_string(c->global ? "global" : "local"));
		json_object_set_new(o, "ns", json_integer(c->ns));
		gt_evidence_str(o, "users", c->users);
		json_array_append_new(arr, o);
	}
	return arr;
}

static json_t *failed_object_json(const struct gt_failed_object *fo)
{
	json_t *o = json_object();

	gt_evidence_str(o, "path", fo->obj->path);
	json_object_set_new(o, "family", str_or_null(fo->family));
	json_object_set_new(o, "version", fo->version[0] ? json_string(fo->version) : json_null());
	json_object_set_new(o, "found_by", str_or_null(gt_rule_name_or_null(fo->found_by)));
	json_object_set_new(o, "requester", json_null());
	gt_evidence_str(o, "requester", fo->obj->requester);
	return o;
}

static json_t *gap_json(const struct gt_symbol_gap *g)
{
	json_t *o = json_object();

	gt_evidence_str(o, "symbol", g->symbol);
	json_object_set_new(o, "version", json_null());
	gt_evidence_str(o, "version", g->version);
	gt_evidence_str(o, "consumer", g->consumer);
	gt_evidence_str(o, "provider", g->provider);
	json_object_set_new(o, "good_copy", json_null());
	gt_evidence_str(o, "good_copy", g->good_copy);
	return o;
}

/* A load the loader undid: what was asked, what it had mapped, and why it
 * failed ("kind": "rolled_back"; a name not found is "not_found"). */
static json_t *rolled_back_json(const struct gt_failed_load *fl)
{
	json_t *o = json_object(), *objs = json_array(), *gaps = json_array();
	size_t i;

	json_object_set_new(o, "kind", json_string(fl->at_startup ? "startup" : "rolled_back"));
	gt_evidence_str(o, "name", fl->name);
	gt_evidence_str(o, "requester", fl->requester);
	for (i = 0; i < fl->nobjects; i++)
		json_array_append_new(objs, failed_object_json(&fl->objects[i]));
	json_object_set_new(o, "objects", objs);
	for (i = 0; i < fl->ngaps; i++)
		json_array_append_new(gaps, gap_json(&fl->gaps[i]));
	json_object_set_new(o, "missing_symbols", gaps);
	if (fl->missing)
		gt_evidence_str(o, "missing_library", fl->missing->name);
	return o;
}

static json_t *failed_loads_json(const struct gt_proc_model *m)
{
	const struct gt_process *p = m->proc;
	json_t *arr = json_array();
	size_t i;

	for (i = 0; i < p->nsearches; i++) {
		const struct gt_search *s = &p->searches[i];
		json_t *o;

		if (s->ours || !s->result || strcmp(s->result, "not_found") != 0)
			continue;
		o = json_object();
		json_object_set_new(o, "kind", json_string("not_found"));
		gt_evidence_str(o, "name", s->name);
		gt_evidence_str(o, "requester", s->requester);
		gt_evidence_tries(o, s);
		/* The process died in this search: the tries are the report's, on paper. */
		if (s->cut_off)
			json_object_set_new(o, "cut_off", json_true());
		json_array_append_new(arr, o);
	}
	for (i = 0; i < m->nfailed; i++)
		json_array_append_new(arr, rolled_back_json(&m->failed[i]));
	return arr;
}

static json_t *api_json(const struct gt_process *p)
{
	json_t *arr = json_array();
	size_t i;

	for (i = 0; i < p->ntotals; i++) {
		json_t *o = json_object();

		json_object_set_new(o, "fn", json_string(p->totals[i].fn));
		json_object_set_new(o, "status", json_integer(p->totals[i].status));
		json_object_set_new(o, "status_name", str_or_null(p->totals[i].status_name));
		json_object_set_new(o, "count", json_integer((json_int_t)p->totals[i].count));
		json_object_set_new(o, "bytes", json_integer((json_int_t)p->totals[i].bytes));
		json_array_append_new(arr, o);
	}
	return arr;
}

/* A process of a group: its own identity, the group's libraries and outcomes
 * (equal by construction). */
static json_t *process_json(const struct gt_proc_model *m, const struct gt_member *who, size_t group)
{
	const struct gt_process *p = m->proc;
	json_t *o = json_object(), *argv = json_array(), *libs = json_array(), *end = json_object();
	json_t *allocs = json_object();
	size_t i;

	json_object_set_new(o, "pid", json_integer(who->pid));
	json_object_set_new(o, "ppid", json_integer(who->ppid));
	json_object_set_new(o, "host", str_or_null(who->host));
	json_object_set_new(o, "rank", who->rank >= 0 ? json_integer(who->rank) : json_null());
	json_object_set_new(o, "group", json_integer((json_int_t)group));
	json_object_set_new(o, "world_size", p->world_size >= 0 ? json_integer(p->world_size) : json_null());
	/* false: LD_PRELOAD alone, the libraries come from the exit listing */
	json_object_set_new(o, "search_trail", json_boolean(p->audit_seen));
	json_object_set_new(o, "exe", json_null());
	gt_evidence_str(o, "exe", p->exe);
	for (i = 0; i < p->argc; i++)
		json_array_append_new(argv, str_or_null(p->argv[i]));
	json_object_set_new(o, "argv", argv);
	/* What steered its loading, as its header recorded it (gputrace diff
	 * sets two runs side by side; retry runs it again with a fix applied). */
	if (json_is_object((json_t *)p->env))
		json_object_set_new(o, "env", json_incref((json_t *)p->env));
	if (p->cwd)
		gt_evidence_str(o, "cwd", p->cwd);
	gt_evidence_str(o, "trace", who->file);
	json_object_set_new(end, "how", json_string(m->ended_how));
	if (m->ended_signal)
		json_object_set_new(end, "signal", json_integer(m->ended_signal));
	if (m->stopped)
		json_object_set_new(end, "stopped", json_true());
	if (m->stopped_by)
		json_object_set_new(end, "stopped_by", json_integer(m->stopped_by));
	if (strcmp(m->ended_how, "exit") == 0 && m->ended_status >= 0)
		json_object_set_new(end, "status", json_integer(m->ended_status));
	json_object_set_new(o, "ended", end);
	/* Only in traces that were cut: the keys of every other report stay as they were. */
	if (p->cut_reason)
		gt_evidence_str(o, "trace_cut", p->cut_reason);
	if (p->cut_lines)
		json_object_set_new(o, "cut_lines", json_integer((json_int_t)p->cut_lines));
	if (p->last_line_cut)
		json_object_set_new(o, "last_line_cut", json_true());
	for (i = 0; i < m->nlibs; i++)
		json_array_append_new(libs, lib_json(m, &m->libs[i]));
	json_object_set_new(o, "libraries", libs);
	json_object_set_new(o, "copies", copies_json(m));
	json_object_set_new(o, "failed_loads", failed_loads_json(m));
	json_object_set_new(o, "api", api_json(p));
	json_object_set_new(allocs, "peak_bytes", json_integer(p->peak_bytes));
	json_object_set_new(allocs, "held_bytes", json_integer(p->held_bytes));
	json_object_set_new(allocs, "failed", json_integer((json_int_t)p->failed_allocs));
	json_object_set_new(o, "allocations", allocs);
	return o;
}

/* Pids, ranks and hosts of a group, as three arrays set on o. */
static void members_json(json_t *o, const struct gt_group *g)
{
	json_t *pids = json_array(), *ranks = json_array(), *hosts = json_array();
	size_t i, k;

	for (i = 0; i < g->nmembers; i++) {
		json_array_append_new(pids, json_integer(g->members[i].pid));
		if (g->members[i].rank >= 0)
			json_array_append_new(ranks, json_integer(g->members[i].rank));
		for (k = 0; k < i && strcmp(g->members[k].host, g->members[i].host) != 0; k++)
			;
		if (k == i)
			json_array_append_new(hosts, json_string(g->members[i].host));
	}
	json_object_set_new(o, "processes", pids);
	json_object_set_new(o, "ranks", ranks);
	json_object_set_new(o, "hosts", hosts);
}

static json_t *finding_json(const struct gt_finding *x)
{
	json_t *o = gt_finding_json(x), *causes = json_array();
	int k;

	if (x->members)
		members_json(o, x->members);
	else
		members_json(o, gt_group_of(x->proc));
	for (k = 0; k < x->ncaused; k++)
		json_array_append_new(causes, json_string(gt_finding_name(x->caused_by[k])));
	if (x->ncaused)
		json_object_set_new(o, "caused_by", causes);
	else
		json_decref(causes);
	return o;
}

/* One member of the document, written as soon as it is built: a thousand
 * processes never sit in memory as one tree. */
static void emit(FILE *f, json_t *v, bool *first)
{
	fputs(*first ? "\n" : ",\n", f);
	*first = false;
	json_dumpf(v, f, JSON_INDENT(1) | JSON_ENSURE_ASCII);
	json_decref(v);
}

void gt_render_json(FILE *f, const struct gt_report *r)
{
	gt_render_json_fleet(f, r, NULL);
}


/* Where the host's answers came from (facts/facts.h): the facts file
 * written when the run ended, this host now, or nowhere. */
static void facts_json(FILE *f, const struct gt_facts_tally *t)
{
	json_t *o = json_pack("{s:I, s:I, s:I, s:I}", "recorded", (json_int_t)t->recorded, "asked",
			      (json_int_t)t->asked, "unanswered", (json_int_t)t->unanswered, "elsewhere",
			      (json_int_t)t->elsewhere);

	json_dumpf(o, f, JSON_COMPACT | JSON_ENSURE_ASCII);
	json_decref(o);
}

/* The report, with the hosts' scans grouped (fleet) or what inspect adds
 * (live) after it when given. */
static void render_json_with(FILE *f, const struct gt_report *r, json_t *fleet, json_t *live)
{
	bool first = true;
	size_t i, k;

	fputs("{\"format\": \"gputrace-report\", \"version\": 1,\n\"findings\": [", f);
	for (i = 0; i < r->findings.n; i++)
		emit(f, finding_json(&r->findings.v[i]), &first);
	fputs("],\n\"processes\": [", f);
	first = true;
	for (i = 0; i < r->ngroups; i++)
		for (k = 0; k < r->groups[i]->nmembers; k++)
			emit(f, process_json(&r->groups[i]->model, &r->groups[i]->members[k], i), &first);
	fputs("],\n\"groups\": [", f);
	first = true;
	for (i = 0; i < r->ngroups; i++) {
		const struct gt_group *g = r->groups[i];
		json_t *go = json_object();

		members_json(go, g);
		json_object_set_new(go, "count", json_integer((json_int_t)g->nmembers));
		json_object_set_new(go, "representative", json_integer(g->members[0].pid));
		json_object_set_new(go, "pids", json_incref(json_object_get(go, "processes")));
		json_object_del(go, "processes");
		emit(f, go, &first);
	}
	fputs("],\n\"unread\": [", f);
	first = true;
	for (i = 0; i < r->nunread; i++) {
		json_t *u = json_object();

		gt_evidence_str(u, "path", r->unread[i].path);
		gt_evidence_str(u, "why", r->unread[i].why);
		emit(f, u, &first);
	}
	fputs("],\n\"facts\": ", f);
	facts_json(f, &r->facts_tally);
	if (fleet) {
		fputs(",\n\"fleet\": ", f);
		json_dumpf(fleet, f, JSON_INDENT(1) | JSON_ENSURE_ASCII);
	}
	if (live) {
		fputs(",\n\"live\": ", f);
		json_dumpf(live, f, JSON_INDENT(1) | JSON_ENSURE_ASCII);
	}
	fputs("}\n", f);
}

void gt_render_json_fleet(FILE *f, const struct gt_report *r, json_t *fleet)
{
	render_json_with(f, r, fleet, NULL);
}

void gt_render_json_live(FILE *f, const struct gt_report *r, json_t *live)
{
	render_json_with(f, r, NULL, live);
}
