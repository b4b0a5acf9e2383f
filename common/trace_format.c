/* Names of the trace format's events, hooked functions and rules, from the
 * tables in include/gputrace/trace_format.h. */
#include <string.h>

#include "gputrace/trace_format.h"

static const char *const event_names[] = {
#define GT_EVENT_NAME(sym, name, doc) name,
	GT_EVENTS(GT_EVENT_NAME)
#undef GT_EVENT_NAME
};

const char *gt_event_name(enum gt_event ev)
{
	return (unsigned)ev < GT_EV_COUNT ? event_names[ev] : "unknown";
}

enum gt_event gt_event_from_name(const char *name)
{
	int i;

	/* The first letter first: a report names the event of every line. */
	for (i = 0; name && i < GT_EV_COUNT; i++)
		if (name[0] == event_names[i][0] && strcmp(name, event_names[i]) == 0)
			return (enum gt_event)i;
	return GT_EV_COUNT;
}

const char *gt_hooked_name(enum gt_hooked_fn fn)
{
	static const char *const names[] = {
#define GT_HOOK_NAME(sym, fam, api, hot) #sym,
		GT_HOOKED(GT_HOOK_NAME)
#undef GT_HOOK_NAME
	};

	return (unsigned)fn < GT_FN_COUNT ? names[fn] : "unknown";
}

int gt_hooked_is_hot(enum gt_hooked_fn fn)
{
	static const unsigned char hot_of[] = {
#define GT_HOOK_HOT(sym, fam, api, hot) hot,
		GT_HOOKED(GT_HOOK_HOT)
#undef GT_HOOK_HOT
	};

	return (unsigned)fn < GT_FN_COUNT && hot_of[fn];
}

static const char *const rule_names[] = {
#define GT_RULE_NAME(sym, name, tag) name,
	GT_RULES(GT_RULE_NAME)
#undef GT_RULE_NAME
};

const char *gt_rule_name(enum gt_rule rule)
{
	return (unsigned)rule < GT_RULE_COUNT ? rule_names[rule] : "unknown";
}

const char *gt_rule_name_or_null(enum gt_rule rule)
{
	return (unsigned)rule < GT_RULE_COUNT ? rule_names[rule] : NULL;
}

const char *gt_rule_tag(enum gt_rule rule)
{
	static const char *const tags[] = {
#define GT_RULE_TAG(sym, name, tag) tag,
		GT_RULES(GT_RULE_TAG)
#undef GT_RULE_TAG
	};

	return (unsigned)rule < GT_RULE_COUNT ? tags[rule] : "[?]";
}

enum gt_rule gt_rule_from_name(const char *name)
{
	int i;

	for (i = 0; i < GT_RULE_COUNT; i++)
		if (name && strcmp(name, rule_names[i]) == 0)
			return (enum gt_rule)i;
	return GT_RULE_UNKNOWN;
}
