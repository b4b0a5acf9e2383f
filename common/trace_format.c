/* Names of the trace format's events and rules, from the tables in trace_format.h. */
#include <string.h>

#include "gputrace/trace_format.h"

const char *gt_event_name(enum gt_event ev)
{
	static const char *const names[] = {
#define GT_EVENT_NAME(sym, name, doc) name,
		GT_EVENTS(GT_EVENT_NAME)
#undef GT_EVENT_NAME
	};

	return (unsigned)ev < GT_EV_COUNT ? names[ev] : "unknown";
}

static const char *const rule_names[] = {
#define GT_RULE_NAME(sym, name) name,
	GT_RULES(GT_RULE_NAME)
#undef GT_RULE_NAME
};

const char *gt_rule_name(enum gt_rule rule)
{
	return (unsigned)rule < GT_RULE_COUNT ? rule_names[rule] : "unknown";
}

enum gt_rule gt_rule_from_name(const char *name)
{
	int i;

	for (i = 0; i < GT_RULE_COUNT; i++)
		if (name && strcmp(name, rule_names[i]) == 0)
			return (enum gt_rule)i;
	return GT_RULE_UNKNOWN;
}
