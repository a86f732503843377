/* src/githistory/similarity.c — similarity of two contents by bytes in common over line-sized chunks, as git -M estimates. */
#include "config.h"
#include "similarity.h"

#include <stdint.h>
#include <stdlib.h>

/* One chunk: the hash of its text and its length in bytes. */
struct chunk {
	uint64_t hash;
	size_t bytes;
};

#define CHUNK_MAX 64 /* git cuts a long line into pieces of this many bytes */

static size_t chunk_count(const char *s, size_t n)
{
	size_t count = 0, len = 0;
	for (size_t i = 0; i < n; i++)
		if (++len == CHUNK_MAX || s[i] == '\n')
			count++, len = 0;
	return count + (len > 0);
}

static void chunks_fill(const char *s, size_t n, struct chunk *v)
{
	uint64_t h = 14695981039346656037ull;
	size_t len = 0, k = 0;
	for (size_t i = 0; i < n; i++) {
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
		if (++len == CHUNK_MAX || s[i] == '\n') {
			v[k++] = (struct chunk){ h, len };
			h = 14695981039346656037ull, len = 0;
		}
	}
	if (len)
		v[k] = (struct chunk){ h, len };
}

static int by_hash(const void *x, const void *y)
{
	const struct chunk *a = x, *b = y;
	return (a->hash > b->hash) - (a->hash < b->hash);
}

int similarity_estimate(const char *a, size_t na, const char *b, size_t nb, double *out)
{
	size_t ca = chunk_count(a, na), cb = chunk_count(b, nb), i = 0, j = 0, common = 0;
	struct chunk *va, *vb;

	*out = 1;
	if (!na && !nb)
		return 0;
	va = malloc((ca ? ca : 1) * sizeof(*va));
	vb = malloc((cb ? cb : 1) * sizeof(*vb));
	if (!va || !vb) {
		free(va);
		free(vb);
		return -1;
	}
	chunks_fill(a, na, va);
	chunks_fill(b, nb, vb);
	qsort(va, ca, sizeof(*va), by_hash);
	qsort(vb, cb, sizeof(*vb), by_hash);
	/* Per chunk text: the bytes it holds on each side; the smaller of the two is in common. */
	while (i < ca && j < cb) {
		if (va[i].hash < vb[j].hash) {
			i++;
		} else if (va[i].hash > vb[j].hash) {
			j++;
		} else {
			uint64_t h = va[i].hash;
			size_t sa = 0, sb = 0;
			for (; i < ca && va[i].hash == h; i++)
				sa += va[i].bytes;
			for (; j < cb && vb[j].hash == h; j++)
				sb += vb[j].bytes;
			common += sa < sb ? sa : sb;
		}
	}
	free(va);
	free(vb);
	*out = (double)common / (double)(na > nb ? na : nb);
	return 0;
}
