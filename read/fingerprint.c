/* Trace fingerprints (see fingerprint.h): FNV-1a over the bytes of the file,
 * skipping the values of the keys that identify a process rather than what it
 * did. Anything unexpected only makes fingerprints differ, which costs a full
 * parse, never a wrong merge. */
#include "read/fingerprint.h"

#include "gputrace/trace_format.h"

#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Keys whose values differ between identical processes. Numbers and short
 * strings only; the whole "env" object is kept but for the rank variables. */
#define JSON_KEY(name) "\"" name "\":",
static const char *const volatile_keys[] = {
	JSON_KEY(GT_K_TIME) JSON_KEY(GT_K_TID) JSON_KEY(GT_K_PID) JSON_KEY(GT_K_PPID)
	JSON_KEY(GT_K_START_TICKS) JSON_KEY(GT_K_SEQ) JSON_KEY(GT_K_SEARCH) JSON_KEY(GT_K_IMAGE)
	JSON_KEY(GT_K_RANK) GT_RANK_VARS(JSON_KEY) JSON_KEY(GT_LOCAL_RANK_VAR) JSON_KEY(GT_K_HOST)
	NULL,
};
#undef JSON_KEY

#define FNV_OFFSET 14695981039346656037ULL
#define FNV_PRIME 1099511628211ULL

/* Length of the value that starts at s when it is one the writer writes
 * there: an integer (digits, an optional leading '-') ending where the JSON
 * value ends, or a simple "string"; else 0, and the bytes are hashed like
 * any others. What the fingerprint skips is checked, so a file that is no
 * trace never matches a trace by what was skipped. */
static size_t value_len(const char *s, const char *end)
{
	const char *p = s;

	if (p < end && *p == '"') {
		for (p++; p < end && *p != '"' && *p != '\\' && *p != '\n'; p++)
			;
		return p < end && *p == '"' ? (size_t)(p + 1 - s) : 0;
	}
	if (p < end && *p == '-')
		p++;
	if (p >= end || *p < '0' || *p > '9')
		return 0;
	while (p < end && *p >= '0' && *p <= '9')
		p++;
	return p < end && (*p == ',' || *p == '}') ? (size_t)(p - s) : 0;
}

/* At a key of the list? Returns its length, else 0. A key is a short quoted
 * name followed by ':'; most quotes open values and paths, so the first
 * letter is checked before anything else. */
static size_t volatile_key_at(const char *s, const char *end)
{
	static size_t lens[sizeof(volatile_keys) / sizeof(volatile_keys[0])];
	const char *q = s + 1;
	size_t len;
	int k;

	if (q >= end || !strchr("tpsirRLOPSh", *q))
		return 0;
	while (q < end && *q != '"' && q - s < 24)
		q++;
	if (q + 1 >= end || *q != '"' || q[1] != ':')
		return 0;
	len = (size_t)(q + 2 - s);
	for (k = 0; volatile_keys[k]; k++) {
		if (!lens[k])
			lens[k] = strlen(volatile_keys[k]);
		if (lens[k] == len && memcmp(s, volatile_keys[k], len) == 0)
			return len;
	}
	return 0;
}

/* Mixes a run of bytes into h eight at a time: most of a trace is paths
 * between quotes, and a byte-at-a-time hash would cost more than the rest. */
static uint64_t mix_run(uint64_t h, const char *s, size_t n)
{
	uint64_t w;

	for (; n >= 8; s += 8, n -= 8) {
		memcpy(&w, s, 8);
		h = (h ^ w) * FNV_PRIME;
		h ^= h >> 29;
	}
	for (; n; s++, n--)
		h = (h ^ (unsigned char)*s) * FNV_PRIME;
	return h;
}

static uint64_t hash_bytes(const char *s, const char *end)
{
	uint64_t h = FNV_OFFSET;
	const char *q;
	size_t kl, vl;

	while (s < end) {
		q = memchr(s, '"', (size_t)(end - s));
		if (!q)
			q = end;
		h = mix_run(h, s, (size_t)(q - s));
		s = q;
		if (s >= end)
			break;
		if ((kl = volatile_key_at(s, end)) != 0 && (vl = value_len(s + kl, end)) != 0) {
			s += kl + vl;
			h = (h ^ '#') * FNV_PRIME;
			continue;
		}
		h = (h ^ '"') * FNV_PRIME;
		s++;
	}
	return h;
}

bool gt_trace_fingerprint(const char *path, uint64_t *fp, char *first, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	struct stat st;
	const char *data, *nl;
	bool ok = false;
	size_t fl;

	if (fd < 0)
		return false;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0)
		goto out;
	data = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (data == MAP_FAILED)
		goto out;
	nl = memchr(data, '\n', (size_t)st.st_size);
	fl = nl ? (size_t)(nl - data) : 0;
	if (nl && fl < cap) {
		memcpy(first, data, fl);
		first[fl] = 0;
		*fp = hash_bytes(data, data + st.st_size);
		ok = true;
	}
	munmap((void *)data, (size_t)st.st_size);
out:
	close(fd);
	return ok;
}
