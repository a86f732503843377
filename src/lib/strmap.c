/* src/lib/strmap.c — open addressing over an insertion-ordered entry array (FNV-1a hashes). */
#include "config.h"
#include "strmap.h"
#include "alloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct entry {
	char *key;
	size_t len;
	uint64_t hash;
	void *value;
};

struct rtk_strmap {
	struct entry *entries; /* insertion order */
	size_t count, cap;
	uint32_t *slots;       /* index + 1 into entries; 0 is empty */
	size_t nslots;         /* a power of two, kept at most half full */
};

static uint64_t fnv1a(const char *key, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)key[i]) * 0x100000001b3ULL;
	return h;
}

struct rtk_strmap *rtk_strmap_new(void)
{
	return calloc(1, sizeof(struct rtk_strmap));
}

void rtk_strmap_free(struct rtk_strmap *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->count; i++)
		free(m->entries[i].key);
	free(m->entries);
	free(m->slots);
	free(m);
}

static size_t find_slot(const struct rtk_strmap *m, const char *key, size_t len, uint64_t hash)
{
	size_t mask = m->nslots - 1, i = hash & mask;
	for (;; i = (i + 1) & mask) {
		uint32_t s = m->slots[i];
		if (!s)
			return i;
		const struct entry *e = &m->entries[s - 1];
		if (e->hash == hash && e->len == len && !memcmp(e->key, key, len))
			return i;
	}
}

void *rtk_strmap_get(const struct rtk_strmap *m, const char *key, size_t len)
{
	if (!m->nslots)
		return NULL;
	uint32_t s = m->slots[find_slot(m, key, len, fnv1a(key, len))];
	return s ? m->entries[s - 1].value : NULL;
}

/* Not RTK_ALLOC_GROW: the slots are rebuilt into a fresh table, not copied over. */
static int grow(struct rtk_strmap *m)
{
	size_t n = m->nslots ? m->nslots * 2 : 16;
	uint32_t *slots = calloc(n, sizeof(*slots));
	if (!slots)
		return -1;
	free(m->slots);
	m->slots = slots;
	m->nslots = n;
	for (size_t i = 0; i < m->count; i++)
		m->slots[find_slot(m, m->entries[i].key, m->entries[i].len, m->entries[i].hash)] = (uint32_t)(i + 1);
	return 0;
}

int rtk_strmap_put(struct rtk_strmap *m, const char *key, size_t len, void *value)
{
	uint64_t hash = fnv1a(key, len);
	if ((m->count + 1) * 2 > m->nslots && grow(m))
		return -1;
	size_t i = find_slot(m, key, len, hash);
	if (m->slots[i]) {
		m->entries[m->slots[i] - 1].value = value;
		return 0;
	}
	if (m->count == UINT32_MAX - 1)
		return -1;
	if (RTK_ALLOC_GROW(m->entries, m->count + 1, m->cap))
		return -1;
	char *copy = malloc(len + 1);
	if (!copy)
		return -1;
	memcpy(copy, key, len);
	copy[len] = '\0';
	m->entries[m->count] = (struct entry){ copy, len, hash, value };
	m->slots[i] = (uint32_t)++m->count;
	return 0;
}

size_t rtk_strmap_count(const struct rtk_strmap *m)
{
	return m->count;
}

const char *rtk_strmap_key_at(const struct rtk_strmap *m, size_t i, size_t *len)
{
	if (len)
		*len = m->entries[i].len;
	return m->entries[i].key;
}

void *rtk_strmap_value_at(const struct rtk_strmap *m, size_t i)
{
	return m->entries[i].value;
}
