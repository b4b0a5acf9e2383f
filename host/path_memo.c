/* Answers about paths kept for the process (see path_memo.h). */
#include "host/path_memo.h"

#include <stdlib.h>
#include <string.h>

#include "common/xalloc.h"

/* Eight bytes a step: the paths hashed are long (a search's candidates,
 * ~80 bytes, each looked up in its folder's listing and among the tries),
 * and FNV-1a's byte a step was ~5% of a torch-like diagnosis (bench/README.md
 * section 21). Kept in memory only, so its values may change. */
static uint64_t mix_word(uint64_t h, uint64_t w)
{
	h = (h ^ w) * 0x9e3779b97f4a7c15ull;
	return h ^ (h >> 29);
}

uint64_t host_path_hash(const char *s, size_t len)
{
	uint64_t h = 1469598103934665603ull ^ len, w;
	size_t i;

	for (i = 0; i + 8 <= len; i += 8) {
		memcpy(&w, s + i, 8);
		h = mix_word(h, w);
	}
	if (i < len) {
		w = 0;
		memcpy(&w, s + i, len - i);
		h = mix_word(h, w);
	}
	/* the low bits, which the tables mask, from all of it */
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	return h ^ (h >> 33);
}

static size_t memo_slot(const struct host_memo *m, const char *key)
{
	size_t k = (size_t)host_path_hash(key, strlen(key)) & (m->cap - 1);

	while (m->keys[k] && strcmp(m->keys[k], key) != 0)
		k = (k + 1) & (m->cap - 1);
	return k;
}

bool host_memo_get(const struct host_memo *m, const char *key, const char **val)
{
	size_t k;

	if (!m->cap)
		return false;
	k = memo_slot(m, key);
	if (!m->keys[k])
		return false;
	*val = m->vals[k];
	return true;
}

void host_memo_put(struct host_memo *m, const char *key, const char *val)
{
	size_t k, i;

	if (2 * (m->n + 1) > m->cap) {
		struct host_memo old = *m;

		m->cap = old.cap ? 2 * old.cap : 256;
		m->keys = gt_xcalloc(m->cap, sizeof(*m->keys));
		m->vals = gt_xcalloc(m->cap, sizeof(*m->vals));
		for (i = 0; i < old.cap; i++)
			if (old.keys[i]) {
				k = memo_slot(m, old.keys[i]);
				m->keys[k] = old.keys[i];
				m->vals[k] = old.vals[i];
			}
		free(old.keys);
		free(old.vals);
	}
	k = memo_slot(m, key);
	if (m->keys[k])
		return;
	m->keys[k] = gt_xstrdup(key);
	m->vals[k] = val ? gt_xstrdup(val) : NULL;
	m->n++;
}

void host_memo_free(struct host_memo *m)
{
	size_t i;

	for (i = 0; i < m->cap; i++) {
		free(m->keys[i]);
		free(m->vals[i]);
	}
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}
