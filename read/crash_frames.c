/* A crash's stack in the report's terms (read/crash_frames.h): the files'
 * symbols and packages are facts of the traced host (facts/facts.h). */
#include "read/crash_frames.h"

#include <string.h>

#include "common/xalloc.h"


/* The object of the trace at path, for its CUDA library model. */
static const struct gt_object *object_at_path(const struct gt_process *p, const char *path)
{
	size_t i;

	for (i = p->nobjects; i-- > 0;)
		if (p->objects[i].path && strcmp(p->objects[i].path, path) == 0)
			return &p->objects[i];
	return NULL;
}

/* The interrupted frame's address is the faulting instruction's; a caller's
 * is a return address, one past its call, which may be past the end of the
 * function (a call of abort() is its last instruction): looked up one byte
 * back. */
static void describe_frame(const struct gt_process *p, struct gt_host_facts *facts, const struct gt_frame *fr,
			   bool caller, struct gt_crash_frame *cf)
{
	unsigned long long at = caller && fr->off ? fr->off - 1 : fr->off;

	cf->frame = fr;
	cf->path = fr->main ? p->exe : fr->path;
	if (!cf->path)
		return;
	cf->obj = object_at_path(p, cf->path);
	if (gt_facts_symbol_at(facts, cf->path, at, cf->symbol, sizeof(cf->symbol), &cf->symbol_off))
		cf->symbol_off += fr->off - at;
	else
		cf->symbol[0] = 0;
	cf->has_package = gt_facts_package(facts, cf->path, &cf->package);
}

size_t gt_crash_frames_build(const struct gt_process *p, struct gt_host_facts *facts, struct gt_crash_frame **out)
{
	const struct gt_crash *c = p->crash;
	size_t i;

	*out = NULL;
	if (!c || !c->nframes)
		return 0;
	*out = gt_xcalloc(c->nframes, sizeof(**out));
	for (i = 0; i < c->nframes; i++)
		describe_frame(p, facts, &c->frames[i], i > 0, &(*out)[i]);
	return c->nframes;
}
