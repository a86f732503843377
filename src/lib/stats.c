/* src/lib/stats.c — confidence statistics from per-distinct-value counts: AUC, DeLong, Mann-Whitney, calibration. */
#include "config.h"
#include "stats.h"

#include "err.h"

#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * 128-bit products are what make the counts exact (__extension__ keeps -Wpedantic quiet). Only
 * unsigned ones are converted to long double: valgrind turns a negative __int128 into 0 there.
 */
__extension__ typedef unsigned __int128 u128;

/* ---- counting rows per distinct value ---- */

/*
 * Few distinct values (the usual shape: two-decimal confidences) live in a hash table of counts.
 * Once it holds HASH_LIMIT values, a row whose value is not in it is appended to a list as one
 * 64-bit word, the value's bits with the label in the top bit: continuous confidences (every
 * value distinct) cost 8 bytes a row instead of a hash slot, and are counted by sorting the list
 * (an LSD radix sort on the bits) and counting runs of equal values. A long list is compacted
 * into a sorted array of counts, so many rows over a few hundred thousand values stay bounded;
 * when a compaction finds the rows mostly distinct (continuous confidences) it is the last, since
 * counts (24 bytes a value) would then take more room than the rows (8 bytes).
 * A key is the bit pattern of a value in [0, 1]: non-negative, so unsigned order is value order.
 */

/* A NaN bit pattern: the counter refuses NaN, so no real key can look like an empty slot. */
#define EMPTY_KEY UINT64_MAX
#define INITIAL_CAPACITY 16
#define HASH_LIMIT 8192
#define LABEL_BIT ((uint64_t)1 << 63)
#define COMPACT_MIN ((size_t)1 << 17)

struct counter_slot {
	uint64_t key;
	uint64_t pos, neg;
};

struct rtk_stats_counter {
	struct counter_slot *slot;
	size_t capacity;       /* a power of two, kept at least twice `used` so probes stay short */
	size_t used;
	uint64_t rows;         /* bounding the total bounds every per-value count too */
	uint64_t *list;        /* rows whose value was not in the full table: key | LABEL_BIT if correct */
	size_t nlist, list_cap;
	struct rtk_stats_value_counts *runs; /* compacted rows: ascending, distinct values */
	size_t nruns;
	bool continuous;       /* a compaction found 3 in 4 rows distinct: the list is kept from then on */
};

/* splitmix64's finaliser: bit patterns of nearby doubles differ only in low bits, so mix them all. */
static uint64_t mix(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

static struct counter_slot *slots_new(size_t capacity)
{
	struct counter_slot *slot = malloc(capacity * sizeof(*slot));
	if (!slot)
		return NULL;
	for (size_t i = 0; i < capacity; i++)
		slot[i] = (struct counter_slot){ .key = EMPTY_KEY };
	return slot;
}

static struct counter_slot *probe(struct counter_slot *slot, size_t capacity, uint64_t key)
{
	size_t i = mix(key) & (capacity - 1);
	while (slot[i].key != key && slot[i].key != EMPTY_KEY)
		i = (i + 1) & (capacity - 1);
	return &slot[i];
}

/* Not RTK_ALLOC_GROW: the slots are rehashed into a fresh table, not copied over. */
static int grow(struct rtk_stats_counter *c)
{
	size_t capacity = c->capacity * 2;
	struct counter_slot *slot;

	if (capacity > SIZE_MAX / sizeof(*slot) || !(slot = slots_new(capacity)))
		return rtk_oom();
	for (size_t i = 0; i < c->capacity; i++)
		if (c->slot[i].key != EMPTY_KEY)
			*probe(slot, capacity, c->slot[i].key) = c->slot[i];
	free(c->slot);
	c->slot = slot;
	c->capacity = capacity;
	return 0;
}

struct rtk_stats_counter *rtk_stats_counter_new(void)
{
	struct rtk_stats_counter *c = calloc(1, sizeof(*c));

	if (c)
		c->slot = slots_new(INITIAL_CAPACITY);
	if (!c || !c->slot) {
		free(c);
		rtk_oom();
		return NULL;
	}
	c->capacity = INITIAL_CAPACITY;
	return c;
}

void rtk_stats_counter_free(struct rtk_stats_counter *c)
{
	if (!c)
		return;
	free(c->slot);
	free(c->list);
	free(c->runs);
	free(c);
}

static uint64_t value_key(double value)
{
	uint64_t key;

	if (value == 0.0)
		value = 0.0; /* -0.0 and 0.0 are one confidence but two bit patterns */
	memcpy(&key, &value, sizeof(key));
	return key;
}

static uint64_t counts_key(const struct rtk_stats_value_counts *v)
{
	uint64_t key;

	memcpy(&key, &v->value, sizeof(key));
	return key;
}

/*
 * Sorts list words by their value bits (the label bit left out): LSD radix, 11 bits a pass, the
 * passes where every word has the same digit skipped. tmp holds n words.
 */
enum { RADIX_BITS = 11, RADIX_PASSES = 6, RADIX_BUCKETS = 1 << RADIX_BITS };

/* A word's radix digit at shift, its label bit left out. */
static inline size_t radix_digit(uint64_t w, int shift)
{
	return ((w & ~LABEL_BIT) >> shift) & (RADIX_BUCKETS - 1);
}

static int radix_sort(uint64_t *a, size_t n)
{
	size_t (*count)[RADIX_BUCKETS];
	uint64_t *tmp, *src = a, *dst;

	if (n < 2)
		return 0;
	if (n > SIZE_MAX / sizeof(*tmp) || !(tmp = malloc(n * sizeof(*tmp))))
		return rtk_oom();
	if (!(count = calloc(RADIX_PASSES, sizeof(*count)))) {
		free(tmp);
		return rtk_oom();
	}
	dst = tmp;
	for (size_t i = 0; i < n; i++)
		for (int p = 0; p < RADIX_PASSES; p++)
			count[p][radix_digit(a[i], p * RADIX_BITS)]++;
	for (int p = 0; p < RADIX_PASSES; p++) {
		size_t sum = 0, *c = count[p];
		bool trivial = false;
		for (size_t b = 0; b < RADIX_BUCKETS; b++) {
			size_t here = c[b];
			if (here == n)
				trivial = true;
			c[b] = sum;
			sum += here;
		}
		if (trivial)
			continue;
		for (size_t i = 0; i < n; i++) {
			uint64_t w = src[i];
			dst[c[radix_digit(w, p * RADIX_BITS)]++] = w;
		}
		uint64_t *t = src;
		src = dst;
		dst = t;
	}
	if (src != a)
		memcpy(a, src, n * sizeof(*a));
	free(tmp);
	free(count);
	return 0;
}

/* Distinct values in a sorted list. */
static size_t list_distinct(const uint64_t *l, size_t n)
{
	size_t d = n > 0;

	for (size_t i = 1; i < n; i++)
		d += (l[i] & ~LABEL_BIT) != (l[i - 1] & ~LABEL_BIT);
	return d;
}

/*
 * Writes the union of up to three ascending sources into out, one entry per distinct value with
 * the counts of all three added: a and b are count arrays, l a sorted list. Returns the entries.
 */
static size_t merge_sources(const struct rtk_stats_value_counts *a, size_t na,
			    const struct rtk_stats_value_counts *b, size_t nb,
			    const uint64_t *l, size_t nl, struct rtk_stats_value_counts *out)
{
	size_t ia = 0, ib = 0, il = 0, n = 0;

	while (ia < na || ib < nb || il < nl) {
		uint64_t key = UINT64_MAX, pos = 0, neg = 0;
		/* The list's values below the next of a and b first, in a tighter loop (continuous confidences:
		 * nearly every value comes from the list alone). No key is UINT64_MAX, a NaN pattern. */
		uint64_t others = ia < na ? counts_key(&a[ia]) : UINT64_MAX;
		if (ib < nb && counts_key(&b[ib]) < others)
			others = counts_key(&b[ib]);
		while (il < nl && (l[il] & ~LABEL_BIT) < others) {
			uint64_t run_key = l[il] & ~LABEL_BIT, run_pos = 0, run_neg = 0;
			do {
				run_pos += l[il] >> 63;
				run_neg += !(l[il] >> 63);
				il++;
			} while (il < nl && (l[il] & ~LABEL_BIT) == run_key);
			memcpy(&out[n].value, &run_key, sizeof(run_key));
			out[n].pos = run_pos;
			out[n].neg = run_neg;
			n++;
		}
		if (ia == na && ib == nb)
			break;
		if (ia < na && counts_key(&a[ia]) < key)
			key = counts_key(&a[ia]);
		if (ib < nb && counts_key(&b[ib]) < key)
			key = counts_key(&b[ib]);
		if (il < nl && (l[il] & ~LABEL_BIT) < key)
			key = l[il] & ~LABEL_BIT;
		if (ia < na && counts_key(&a[ia]) == key)
			pos += a[ia].pos, neg += a[ia].neg, ia++;
		if (ib < nb && counts_key(&b[ib]) == key)
			pos += b[ib].pos, neg += b[ib].neg, ib++;
		for (; il < nl && (l[il] & ~LABEL_BIT) == key; il++) {
			if (l[il] & LABEL_BIT)
				pos++;
			else
				neg++;
		}
		memcpy(&out[n].value, &key, sizeof(key));
		out[n].pos = pos;
		out[n].neg = neg;
		n++;
	}
	return n;
}

/*
 * The sort and merge of a long list (continuous confidences: one word a row, millions of them) are
 * shared by two threads, each over half the words; the result is the single-threaded one exactly.
 */
#define PARALLEL_SORT_MIN ((size_t)1 << 18)

/* Runs job(arg0) here and job(arg1) in a second thread at the same time, or both here if none starts. */
static void run_pair(void *(*job)(void *), void *arg0, void *arg1)
{
	pthread_t thread;
	bool threaded = pthread_create(&thread, NULL, job, arg1) == 0;

	job(arg0);
	if (threaded)
		pthread_join(thread, NULL);
	else
		job(arg1);
}

/* One half of a radix pass: its words' digits counted, then scattered after the first half's. */
struct radix_half {
	const struct radix_half *pair; /* both halves, first then second */
	bool second;
	size_t lo, hi;                 /* this half: src[lo, hi) */
	const uint64_t *src;
	uint64_t *dst;
	int shift;
	size_t count[RADIX_BUCKETS];
};

static void *radix_count_half(void *arg)
{
	struct radix_half *h = arg;

	memset(h->count, 0, sizeof(h->count));
	for (size_t i = h->lo; i < h->hi; i++)
		h->count[radix_digit(h->src[i], h->shift)]++;
	return NULL;
}

/* Stable: a bucket takes the first half's words, then the second's, each in their order. */
static void *radix_scatter_half(void *arg)
{
	struct radix_half *h = arg;
	const size_t *first = h->pair[0].count, *second = h->pair[1].count;
	size_t at[RADIX_BUCKETS], sum = 0;

	for (size_t b = 0; b < RADIX_BUCKETS; b++) {
		at[b] = sum + (h->second ? first[b] : 0);
		sum += first[b] + second[b];
	}
	for (size_t i = h->lo; i < h->hi; i++) {
		uint64_t w = h->src[i];
		h->dst[at[radix_digit(w, h->shift)]++] = w;
	}
	return NULL;
}

/* radix_sort's order, each pass counted and scattered by two threads. */
static int radix_sort_parallel(uint64_t *a, size_t n)
{
	struct radix_half *h;
	uint64_t *tmp, *src = a, *dst;

	if (n > SIZE_MAX / sizeof(*tmp) || !(tmp = malloc(n * sizeof(*tmp))))
		return rtk_oom();
	if (!(h = calloc(2, sizeof(*h)))) {
		free(tmp);
		return rtk_oom();
	}
	dst = tmp;
	h[0] = (struct radix_half){ .pair = h, .second = false, .lo = 0, .hi = n / 2 };
	h[1] = (struct radix_half){ .pair = h, .second = true, .lo = n / 2, .hi = n };
	for (int p = 0; p < RADIX_PASSES; p++) {
		bool trivial = false;
		for (int i = 0; i < 2; i++)
			h[i].src = src, h[i].dst = dst, h[i].shift = p * RADIX_BITS;
		run_pair(radix_count_half, &h[0], &h[1]);
		for (size_t b = 0; b < RADIX_BUCKETS && !trivial; b++)
			trivial = h[0].count[b] + h[1].count[b] == n;
		if (trivial)
			continue;
		run_pair(radix_scatter_half, &h[0], &h[1]);
		uint64_t *t = src;
		src = dst;
		dst = t;
	}
	if (src != a)
		memcpy(a, src, n * sizeof(*a));
	free(tmp);
	free(h);
	return 0;
}

/* The first index of an ascending array whose key is at least key. */
static size_t counts_lower_bound(const struct rtk_stats_value_counts *v, size_t n, uint64_t key)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (counts_key(&v[mid]) < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static size_t list_lower_bound(const uint64_t *l, size_t n, uint64_t key)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if ((l[mid] & ~LABEL_BIT) < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The sources' entries below a key (first part) or from it on (second), and where they are merged to. */
struct merge_part {
	const struct rtk_stats_value_counts *a, *b;
	const uint64_t *l;
	size_t na, nb, nl, k;
	struct rtk_stats_value_counts *out;
};

static void *merge_part_run(void *arg)
{
	struct merge_part *m = arg;

	m->k = merge_sources(m->a, m->na, m->b, m->nb, m->l, m->nl, m->out);
	return NULL;
}

/*
 * The sorted list merged with the sorted table values v and the runs into *out, by two threads: the
 * sources are cut at the key of the list's middle word and each part is merged into room for all its
 * sources' entries; the second part then moves down over what the first did not fill (nothing, when
 * no value is in two sources: continuous confidences). The same entries as one merge_sources.
 */
static int merge_parallel(const struct rtk_stats_counter *c, const struct rtk_stats_value_counts *v, size_t n,
			  struct rtk_stats_value_counts **out, size_t *k)
{
	uint64_t cut = c->list[c->nlist / 2] & ~LABEL_BIT;
	size_t sv = counts_lower_bound(v, n, cut), sr = counts_lower_bound(c->runs, c->nruns, cut);
	size_t sl = list_lower_bound(c->list, c->nlist, cut);
	struct merge_part part[2] = {
		{ .a = v, .na = sv, .b = c->runs, .nb = sr, .l = c->list, .nl = sl },
		{ .a = v ? v + sv : NULL, .na = n - sv, .b = c->runs ? c->runs + sr : NULL, .nb = c->nruns - sr,
		  .l = c->list + sl, .nl = c->nlist - sl },
	};
	struct rtk_stats_value_counts *all, *shrunk;
	/* the entries each part can make at most: one per source entry (all sizes are of arrays in memory) */
	size_t room0 = part[0].na + part[0].nb + part[0].nl, room1 = part[1].na + part[1].nb + part[1].nl;

	if (room1 > SIZE_MAX / sizeof(*all) - room0 || !(all = malloc((room0 + room1) * sizeof(*all))))
		return rtk_oom();
	part[0].out = all;
	part[1].out = all + room0;
	run_pair(merge_part_run, &part[0], &part[1]);
	if (part[0].k < room0)
		memmove(all + part[0].k, all + room0, part[1].k * sizeof(*all));
	*k = part[0].k + part[1].k;
	if (*k < room0 + room1 && *k && (shrunk = realloc(all, *k * sizeof(*all))))
		all = shrunk;
	*out = all;
	return 0;
}

/* Folds the list into runs: sorted, counted, merged with what earlier compactions left. */
static int compact(struct rtk_stats_counter *c)
{
	struct rtk_stats_value_counts *runs;
	size_t d;
	int rc = radix_sort(c->list, c->nlist);

	if (rc)
		return rc;
	d = list_distinct(c->list, c->nlist);
	if (d > SIZE_MAX / sizeof(*runs) - c->nruns || !(runs = malloc((c->nruns + d) * sizeof(*runs))))
		return rtk_oom();
	if (d / 3 > (c->nlist - d))
		c->continuous = true;
	c->nruns = merge_sources(c->runs, c->nruns, NULL, 0, c->list, c->nlist, runs);
	free(c->runs);
	c->runs = runs;
	c->nlist = 0;
	return 0;
}

static int list_reserve(struct rtk_stats_counter *c, size_t more)
{
	size_t cap = c->list_cap ? c->list_cap : 1024;
	uint64_t *list;

	if (more > SIZE_MAX / sizeof(*list) - c->nlist)
		return rtk_oom();
	while (cap < c->nlist + more)
		cap = cap > SIZE_MAX / sizeof(*list) / 2 ? SIZE_MAX / sizeof(*list) : cap * 2;
	if (cap == c->list_cap)
		return 0;
	if (!(list = realloc(c->list, cap * sizeof(*list))))
		return rtk_oom();
	c->list = list;
	c->list_cap = cap;
	return 0;
}

/* A long list is compacted once it holds twice as many rows as the runs hold values (and at least COMPACT_MIN). */
static int maybe_compact(struct rtk_stats_counter *c)
{
	return !c->continuous && c->nlist >= COMPACT_MIN && c->nlist / 2 >= c->nruns ? compact(c) : 0;
}

int rtk_stats_counter_add_n(struct rtk_stats_counter *c, double value, uint64_t pos, uint64_t neg)
{
	struct counter_slot *slot;
	uint64_t key;

	if (!(value >= 0.0 && value <= 1.0))
		return rtk_fail(RTK_EXIT_USAGE, "confidence %g is not in [0, 1]", value);
	if (pos == 0 && neg == 0)
		return 0;
	if (pos > UINT64_MAX - c->rows || neg > UINT64_MAX - c->rows - pos)
		return rtk_fail(RTK_EXIT_FAILURE, "more than %llu rows", (unsigned long long)UINT64_MAX);
	key = value_key(value);
	/* Continuous confidences: a row goes to the list unprobed. A value the table holds too is
	 * summed with it when the two are merged (merge_sources adds equal keys from every source). */
	if (c->continuous && pos + neg == 1) {
		int rc;
		if (c->nlist == c->list_cap && (rc = list_reserve(c, 1)))
			return rc;
		c->list[c->nlist++] = key | (pos ? LABEL_BIT : 0);
		c->rows++;
		return 0;
	}
	slot = probe(c->slot, c->capacity, key);
	if (slot->key == EMPTY_KEY) {
		if (c->used >= HASH_LIMIT && pos + neg == 1) {
			int rc;
			if (c->nlist == c->list_cap && (rc = list_reserve(c, 1)))
				return rc;
			c->list[c->nlist++] = key | (pos ? LABEL_BIT : 0);
			c->rows++;
			return maybe_compact(c);
		}
		if ((c->used + 1) * 2 > c->capacity) {
			int rc = grow(c);
			if (rc)
				return rc;
			slot = probe(c->slot, c->capacity, key);
		}
		slot->key = key;
		c->used++;
	}
	slot->pos += pos;
	slot->neg += neg;
	c->rows += pos + neg;
	return 0;
}

int rtk_stats_counter_add(struct rtk_stats_counter *c, double value, bool correct)
{
	/* A continuous confidence with room in the list: rtk_stats_counter_add_n's own path, fewer checks. */
	if (c->continuous && c->nlist < c->list_cap && value >= 0.0 && value <= 1.0 && c->rows < UINT64_MAX) {
		c->list[c->nlist++] = value_key(value) | (correct ? LABEL_BIT : 0);
		c->rows++;
		return 0;
	}
	return rtk_stats_counter_add_n(c, value, correct ? 1 : 0, correct ? 0 : 1);
}

int rtk_stats_counter_merge(struct rtk_stats_counter *into, const struct rtk_stats_counter *from)
{
	int rc = 0;

	if (from->rows > UINT64_MAX - into->rows)
		return rtk_fail(RTK_EXIT_FAILURE, "more than %llu rows", (unsigned long long)UINT64_MAX);
	into->continuous |= from->continuous;
	for (size_t i = 0; !rc && i < from->capacity; i++) {
		const struct counter_slot *s = &from->slot[i];
		double value;
		if (s->key == EMPTY_KEY)
			continue;
		memcpy(&value, &s->key, sizeof(value));
		rc = rtk_stats_counter_add_n(into, value, s->pos, s->neg);
	}
	if (rc)
		return rc;
	if (from->nruns) {
		struct rtk_stats_value_counts *runs;
		if (from->nruns > SIZE_MAX / sizeof(*runs) - into->nruns ||
		    !(runs = malloc((into->nruns + from->nruns) * sizeof(*runs))))
			return rtk_oom();
		into->nruns = merge_sources(into->runs, into->nruns, from->runs, from->nruns, NULL, 0, runs);
		free(into->runs);
		into->runs = runs;
		for (size_t i = 0; i < from->nruns; i++)
			into->rows += from->runs[i].pos + from->runs[i].neg;
	}
	if (from->nlist) {
		if ((rc = list_reserve(into, from->nlist)))
			return rc;
		memcpy(into->list + into->nlist, from->list, from->nlist * sizeof(*from->list));
		into->nlist += from->nlist;
		into->rows += from->nlist;
		rc = maybe_compact(into);
	}
	return rc;
}

static int by_value(const void *a, const void *b)
{
	double x = ((const struct rtk_stats_value_counts *)a)->value;
	double y = ((const struct rtk_stats_value_counts *)b)->value;

	return (x > y) - (x < y);
}

int rtk_stats_counter_sorted(struct rtk_stats_counter *c, struct rtk_stats_value_counts **out, size_t *k)
{
	struct rtk_stats_value_counts *v = NULL, *all;
	size_t n = 0, d;
	int rc;

	if (c->used) {
		v = malloc(c->used * sizeof(*v));
		if (!v)
			return rtk_oom();
	}
	for (size_t i = 0; i < c->capacity; i++) {
		const struct counter_slot *s = &c->slot[i];
		if (s->key == EMPTY_KEY)
			continue;
		memcpy(&v[n].value, &s->key, sizeof(v[n].value));
		v[n].pos = s->pos;
		v[n].neg = s->neg;
		n++;
	}
	if (n)
		qsort(v, n, sizeof(*v), by_value);
	if (!c->nlist && !c->nruns) {
		*out = v;
		*k = n;
		return 0;
	}
	if (c->nlist >= PARALLEL_SORT_MIN && sysconf(_SC_NPROCESSORS_ONLN) > 1) {
		if (!(rc = radix_sort_parallel(c->list, c->nlist)))
			rc = merge_parallel(c, v, n, out, k);
		free(v);
		return rc;
	}
	if ((rc = radix_sort(c->list, c->nlist))) {
		free(v);
		return rc;
	}
	d = list_distinct(c->list, c->nlist);
	if (d > SIZE_MAX / sizeof(*all) - n - c->nruns || !(all = malloc((n + c->nruns + d) * sizeof(*all)))) {
		free(v);
		return rtk_oom();
	}
	*k = merge_sources(v, n, c->runs, c->nruns, c->list, c->nlist, all);
	*out = all;
	free(v);
	return 0;
}

/* ---- shared checks ---- */

struct totals {
	uint64_t n, pos, neg;
};

/* Sorted input is what makes one pass enough; a caller handing anything else has a bug. */
static int count_totals(const struct rtk_stats_value_counts *v, size_t k, struct totals *t)
{
	u128 pos = 0, neg = 0;

	for (size_t i = 0; i < k; i++) {
		if (i > 0 && !(v[i].value > v[i - 1].value))
			return rtk_fail(RTK_EXIT_FAILURE, "stats: confidence values are not strictly ascending");
		pos += v[i].pos;
		neg += v[i].neg;
	}
	if (pos + neg > UINT64_MAX)
		return rtk_fail(RTK_EXIT_FAILURE, "stats: more than %llu rows", (unsigned long long)UINT64_MAX);
	t->pos = (uint64_t)pos;
	t->neg = (uint64_t)neg;
	t->n = t->pos + t->neg;
	return 0;
}

/* ---- the normal distribution ---- */

#define SQRT1_2 0.70710678118654752440

double rtk_stats_norm_cdf(double z)
{
	/* erfc keeps full relative precision far into the lower tail, where 1 + erf would give 0 */
	return 0.5 * erfc(-z * SQRT1_2);
}

static double ppf_central(double q)
{
	double r = 0.180625 - q * q;

	return q * (((((((r * 2509.0809287301226727 + 33430.575583588128105) * r + 67265.770927008700853) * r
			+ 45921.953931549871457) * r + 13731.693765509461125) * r + 1971.5909503065514427) * r
			+ 133.14166789178437745) * r + 3.387132872796366608)
		/ (((((((r * 5226.495278852545925 + 28729.085735721942674) * r + 39307.89580009271061) * r
			+ 21213.794301586595867) * r + 5394.1960214247511077) * r + 687.1870074920579083) * r
			+ 42.313330701600911252) * r + 1.0);
}

/* r = sqrt(-ln(tail probability)), at most 5: tails down to about 1e-11 */
static double ppf_intermediate(double r)
{
	r -= 1.6;
	return (((((((r * 7.7454501427834140764e-4 + 0.0227238449892691845833) * r + 0.24178072517745061177) * r
			+ 1.27045825245236838258) * r + 3.64784832476320460504) * r + 5.7694972214606914055) * r
			+ 4.6303378461565452959) * r + 1.42343711074968357734)
		/ (((((((r * 1.05075007164441684324e-9 + 5.475938084995344946e-4) * r + 0.0151986665636164571966) * r
			+ 0.14810397642748007459) * r + 0.68976733498510000455) * r + 1.6763848301838038494) * r
			+ 2.05319162663775882187) * r + 1.0);
}

static double ppf_far(double r)
{
	r -= 5.0;
	return (((((((r * 2.01033439929228813265e-7 + 2.71155556874348757815e-5) * r + 0.0012426609473880784386) * r
			+ 0.026532189526576123093) * r + 0.29656057182850489123) * r + 1.7848265399172913358) * r
			+ 5.4637849111641143699) * r + 6.6579046435011037772)
		/ (((((((r * 2.04426310338993978564e-15 + 1.4215117583164458887e-7) * r + 1.8463183175100546818e-5) * r
			+ 7.868691311456132591e-4) * r + 0.0148753612908506148525) * r + 0.13692988092273580531) * r
			+ 0.59983220655588793769) * r + 1.0);
}

/* Wichura (1988), Algorithm AS 241 (PPND16): about 1e-16 relative accuracy. */
double rtk_stats_norm_ppf(double p)
{
	double q = p - 0.5, r, x;

	if (isnan(p) || p < 0.0 || p > 1.0)
		return NAN;
	if (p == 0.0)
		return -INFINITY;
	if (p == 1.0)
		return INFINITY;
	if (fabs(q) <= 0.425)
		return ppf_central(q);
	/* the smaller tail, taken from p itself and not 1 - p, so tiny p keeps its digits */
	r = sqrt(-log(q < 0 ? p : 1.0 - p));
	x = r <= 5.0 ? ppf_intermediate(r) : ppf_far(r);
	return q < 0 ? -x : x;
}

/* z of a two-sided interval; -ppf of the lower tail, as statsmodels' norm.isf(alpha / 2) */
static double two_sided_z(double level)
{
	return -rtk_stats_norm_ppf((1.0 - level) / 2.0);
}

/* ---- discrimination ---- */

/* Var = S10/P + S01/N: each distinct value's rows share one placement value, so sum by counts. */
static void delong(const struct rtk_stats_value_counts *v, size_t k, const struct totals *t,
		   long double auc, struct rtk_stats_discrimination *out)
{
	long double pos = t->pos, neg = t->neg, ss10 = 0, ss01 = 0;
	uint64_t neg_below = 0, pos_below = 0;

	/*
	 * A count of 0 adds 0 * d * d = +0 (d finite) to a sum of non-negative terms, which leaves it as
	 * it is: a value with no correct (or no wrong) rows skips that half, and its division.
	 */
	for (size_t i = 0; i < k; i++) {
		if (v[i].pos) {
			long double v10 = (neg_below + 0.5L * v[i].neg) / neg;
			ss10 += v[i].pos * (v10 - auc) * (v10 - auc);
		}
		if (v[i].neg) {
			uint64_t pos_above = t->pos - pos_below - v[i].pos;
			long double v01 = (pos_above + 0.5L * v[i].pos) / pos;
			ss01 += v[i].neg * (v01 - auc) * (v01 - auc);
		}
		neg_below += v[i].neg;
		pos_below += v[i].pos;
	}
	out->delong_var = (double)(ss10 / (pos - 1) / pos + ss01 / (neg - 1) / neg);
	out->delong_se = sqrt(out->delong_var);
}

/*
 * sigma^2 = PN/12 * ((n+1) - sum(t^3 - t)/(n(n-1))). Since sum(t) = n that is
 * PN/12 * sum(t (n-t) (n+t)) / (n(n-1)): all terms non-negative, so no cancellation even when
 * nearly every row shares one value.
 */
static long double mw_null_variance(const struct rtk_stats_value_counts *v, size_t k, const struct totals *t)
{
	long double n = t->n, ties = 0;
	const uint64_t one = 1;
	const long double one_row = (long double)one * (t->n - one) * (n + one); /* a value of one row's term, worked out once */

	for (size_t i = 0; i < k; i++) {
		uint64_t size = v[i].pos + v[i].neg;
		ties += size == 1 ? one_row : (long double)size * (t->n - size) * (n + size);
	}
	return (long double)t->pos * t->neg / 12.0L * ties / (n * (n - 1));
}

static void mann_whitney(const struct rtk_stats_value_counts *v, size_t k, const struct totals *t,
			 u128 twice_u, struct rtk_stats_discrimination *out)
{
	long double sigma = sqrtl(mw_null_variance(v, k, t));
	/* 2 (U - PN/2 - 1/2), from integers, so it is exact before the division */
	u128 shift = (u128)t->pos * t->neg + 1;
	long double twice_numerator = twice_u >= shift ? (long double)(twice_u - shift) : -(long double)(shift - twice_u);

	out->mw_available = true;
	out->mw_u = (double)((long double)twice_u / 2);
	if (sigma == 0) {
		out->mw_z = NAN;
		out->mw_p = 1.0;
		return;
	}
	out->mw_z = (double)(twice_numerator / 2 / sigma);
	out->mw_p = rtk_stats_norm_cdf(-out->mw_z);
}

int rtk_stats_discriminate(const struct rtk_stats_value_counts *v, size_t k, struct rtk_stats_discrimination *out)
{
	struct totals t;
	u128 twice_u = 0, tied = 0, pairs;
	uint64_t neg_below = 0;
	long double auc;
	int rc = count_totals(v, k, &t);

	if (rc)
		return rc;
	*out = (struct rtk_stats_discrimination){
		.n = t.n, .n_pos = t.pos, .n_neg = t.neg, .distinct = k,
		.auc = NAN, .tied_pair_share = NAN, .delong_var = NAN, .delong_se = NAN,
		.mw_u = NAN, .mw_z = NAN, .mw_p = NAN,
	};
	if (t.pos == 0 || t.neg == 0)
		return 0;
	/* 2U: each correct row scores 2 per wrong row below it and 1 per wrong row level with it */
	for (size_t i = 0; i < k; i++) {
		twice_u += (u128)v[i].pos * (2 * (u128)neg_below + v[i].neg);
		tied += (u128)v[i].pos * v[i].neg;
		neg_below += v[i].neg;
	}
	pairs = (u128)t.pos * t.neg;
	auc = (long double)twice_u / (2 * (long double)pairs);
	out->auc_available = true;
	out->auc = (double)auc;
	out->tied_pair_share = (double)((long double)tied / (long double)pairs);
	if (t.pos >= 2 && t.neg >= 2) {
		out->se_available = true;
		delong(v, k, &t, auc, out);
	}
	mann_whitney(v, k, &t, twice_u, out);
	return 0;
}

int rtk_stats_auc_ci(const struct rtk_stats_discrimination *d, double level, double *lo, double *hi)
{
	double half;

	*lo = *hi = NAN;
	if (!(level > 0.0 && level < 1.0))
		return rtk_fail(RTK_EXIT_USAGE, "confidence level %g is not between 0 and 1", level);
	if (!d->se_available)
		return 0;
	half = two_sided_z(level) * d->delong_se;
	*lo = fmax(0.0, d->auc - half);
	*hi = fmin(1.0, d->auc + half);
	return 0;
}

/* ---- proportions ---- */

void rtk_stats_wilson(uint64_t successes, uint64_t n, double level, double *lo, double *hi)
{
	long double z, z2, q, denom, centre, dist;

	*lo = *hi = NAN;
	if (n == 0 || successes > n || !(level > 0.0 && level < 1.0))
		return;
	z = two_sided_z(level);
	z2 = z * z;
	q = (long double)successes / n;
	denom = 1 + z2 / n;
	centre = (q + z2 / (2.0L * n)) / denom;
	dist = z * sqrtl(q * (1 - q) / n + z2 / (4.0L * n * n)) / denom;
	/* analytically exact ends, which rounding would otherwise leave a hair off */
	*lo = successes == 0 ? 0.0 : (double)fmaxl(0, centre - dist);
	*hi = successes == n ? 1.0 : (double)fminl(1, centre + dist);
}

/* ---- calibration ---- */

struct bin_sum {
	uint64_t n, pos;
	long double confidence;    /* sum over the bin's rows */
};

/*
 * value * bins rounds, so settle against the edges themselves: bin i holds edge[i] = (double)i/bins
 * (edge has bins + 1 entries, computed once rather than two divisions a value).
 */
static unsigned width_bin(double value, unsigned bins, const double *edge)
{
	double scaled = value * bins;
	unsigned i = scaled >= bins ? bins - 1 : (unsigned)scaled;

	if (i + 1 < bins && value >= edge[i + 1])
		i++;
	else if (i > 0 && value < edge[i])
		i--;
	return i;
}

/*
 * floor(rows_before * bins / n), stepped up from the previous value's bin (rows_before only grows):
 * the largest m with m * n <= rows_before * bins, found with multiplications, no 128-bit division.
 */
static unsigned mass_bin(unsigned from, uint64_t rows_before, uint64_t n, unsigned bins)
{
	u128 scaled = (u128)rows_before * bins;

	while ((u128)(from + 1) * n <= scaled)
		from++;
	return from;
}

static void bin_add(struct bin_sum *b, const struct rtk_stats_value_counts *v)
{
	uint64_t rows = v->pos + v->neg;

	b->n += rows;
	b->pos += v->pos;
	/* value * 1 is the value: a value of one row (continuous confidences) skips the count's conversion */
	b->confidence += rows == 1 ? (long double)v->value : (long double)v->value * rows;
}

static long double bin_gap(const struct bin_sum *b)
{
	return fabsl(((long double)b->pos - b->confidence) / b->n);
}

/* Sum of n_b/n * |accuracy_b - confidence_b| over bins; also the largest gap. */
static long double expected_error(const struct bin_sum *b, unsigned bins, uint64_t n, long double *max_gap)
{
	long double sum = 0;

	*max_gap = 0;
	for (unsigned i = 0; i < bins; i++) {
		if (!b[i].n)
			continue;
		sum += b[i].n * bin_gap(&b[i]);
		*max_gap = fmaxl(*max_gap, bin_gap(&b[i]));
	}
	return sum / n;
}

static void reliability_table(const struct bin_sum *b, unsigned bins, struct rtk_stats_bin *out)
{
	for (unsigned i = 0; i < bins; i++) {
		struct rtk_stats_bin *o = &out[i];
		*o = (struct rtk_stats_bin){
			.lo = (double)i / bins, .hi = (double)(i + 1) / bins,
			.n = b[i].n, .n_correct = b[i].pos, .empty = b[i].n == 0,
			.mean_confidence = NAN, .accuracy = NAN, .acc_lo = NAN, .acc_hi = NAN,
		};
		if (o->empty)
			continue;
		o->mean_confidence = (double)(b[i].confidence / b[i].n);
		o->accuracy = (double)((long double)b[i].pos / b[i].n);
		rtk_stats_wilson(b[i].pos, b[i].n, RTK_STATS_RELIABILITY_LEVEL, &o->acc_lo, &o->acc_hi);
	}
}

#define LOG_LOSS_EPS 1e-15

#if defined(__x86_64__) && defined(__GNUC__) && LDBL_MANT_DIG == 64
/*
 * logl(x) for a positive finite x, by the x87 instructions of glibc's x86-64 logl
 * (sysdeps/x86_64/fpu/e_logl.S): ln 2 * log2(1 + (x - 1)) by fyl2xp1 when |x - 1| <= 0.29 (the
 * double 0.29, as glibc compares it), else ln 2 * log2(x) by fyl2x. The same instructions on the same
 * operands give the same bits as logl, at ~70% of its time (no wrapper, no fxam and status-word
 * round trips): the log loss's one logl a value was the longest part of the analysis. Checked
 * against logl on 40 million clipped forecasts and their complements, no difference.
 */
static inline long double ln_positive(long double x)
{
	long double ln2, r, m = x - 1;

	__asm__("fldln2" : "=t"(ln2));
	if (fabsl(m) <= 0.29) {
		if (m == 0)
			return 0; /* glibc: "log(1) is +0 in all rounding modes" */
		__asm__("fyl2xp1" : "=t"(r) : "0"(m), "u"(ln2) : "st(1)");
	} else {
		__asm__("fyl2x" : "=t"(r) : "0"(x), "u"(ln2) : "st(1)");
	}
	return r;
}
#else
#define ln_positive logl
#endif

/*
 * -ln of the clipped forecast, and of its complement: a wrong row at 1.0 costs -ln(1 - (1 - 1e-15)).
 * A cost no row pays is left 0 and its logl skipped (continuous confidences have one row a value):
 * both costs are finite and positive, so 0 * cost and 0 add the same +0 to the sum.
 */
static void clipped_costs(double value, bool correct_rows, bool wrong_rows, long double *cost_correct,
			  long double *cost_wrong)
{
	double p = fmin(fmax(value, LOG_LOSS_EPS), 1.0 - LOG_LOSS_EPS);

	*cost_correct = correct_rows ? -ln_positive(p) : 0;
	*cost_wrong = wrong_rows ? -ln_positive(1.0L - p) : 0;
}

/* One value's log-loss term, as proper_scores adds it: the row counts times the costs they pay. */
static long double loss_term(const struct rtk_stats_value_counts *v)
{
	long double cost_correct, cost_wrong;

	/* One row: 1 * cost + 0 * 0 is the cost itself (a positive number), so only the one logarithm. */
	if (v->pos + v->neg == 1) {
		double p = v->value < LOG_LOSS_EPS ? LOG_LOSS_EPS : v->value > 1.0 - LOG_LOSS_EPS ? 1.0 - LOG_LOSS_EPS : v->value;
		return v->pos ? -ln_positive(p) : -ln_positive(1.0L - p);
	}
	clipped_costs(v->value, v->pos != 0, v->neg != 0, &cost_correct, &cost_wrong);
	return v->pos * cost_correct + v->neg * cost_wrong;
}

/*
 * The log-loss terms (a logarithm per value: half of proper_scores' time on continuous confidences)
 * made by LOSS_MAKERS threads, chunk c by maker c % LOSS_MAKERS, a few chunks ahead of the sums, which
 * still add them in order: the same terms added in the same order give the same bits.
 */
#define LOSS_CHUNK 16384
#define LOSS_RING 8
#define LOSS_MAKERS 2
struct loss_terms {
	const struct rtk_stats_value_counts *v;
	size_t k, used;             /* used: the chunk being added up; the slots of those before it are free */
	size_t made[LOSS_RING];     /* 1 + the chunk a slot holds once it is made, else 0 */
	unsigned makers;            /* makers started so far: the next one's number */
	bool stop;                  /* a maker could not be started: the others give up */
	long double loss;           /* the terms' sum, in order, once loss_terms_sum is done */
	pthread_mutex_t lock;
	pthread_cond_t changed;
	long double ring[LOSS_RING][LOSS_CHUNK];
};

static void *loss_terms_run(void *arg)
{
	struct loss_terms *l = arg;
	size_t chunks = (l->k + LOSS_CHUNK - 1) / LOSS_CHUNK;
	unsigned me;

	pthread_mutex_lock(&l->lock);
	me = l->makers++;
	pthread_mutex_unlock(&l->lock);
	for (size_t c = me; c < chunks; c += LOSS_MAKERS) {
		pthread_mutex_lock(&l->lock);
		while (!l->stop && c - l->used >= LOSS_RING)
			pthread_cond_wait(&l->changed, &l->lock);
		bool stop = l->stop;
		pthread_mutex_unlock(&l->lock);
		if (stop)
			break;
		long double *out = l->ring[c % LOSS_RING];
		size_t lo = c * LOSS_CHUNK, hi = lo + LOSS_CHUNK < l->k ? lo + LOSS_CHUNK : l->k;
		for (size_t i = lo; i < hi; i++)
			out[i - lo] = loss_term(&l->v[i]);
		pthread_mutex_lock(&l->lock);
		l->made[c % LOSS_RING] = c + 1;
		pthread_cond_broadcast(&l->changed);
		pthread_mutex_unlock(&l->lock);
	}
	return NULL;
}

/* Chunk c of the terms, once made; the chunk before it is given back. */
static const long double *loss_terms_take(struct loss_terms *l, size_t c)
{
	pthread_mutex_lock(&l->lock);
	l->used = c;
	pthread_cond_broadcast(&l->changed);
	while (l->made[c % LOSS_RING] != c + 1)
		pthread_cond_wait(&l->changed, &l->lock);
	pthread_mutex_unlock(&l->lock);
	return l->ring[c % LOSS_RING];
}

/*
 * sum + term[0] + term[1] + ... in that order. A function of its own, so the compiler keeps the
 * sum in a register: in loss_terms_sum's loop, live across a call, it was stored and loaded
 * again at each term (most of that thread's time). The same additions in the same order, and an
 * 80-bit store is exact anyway: the same bits.
 */
static __attribute__((noinline)) long double add_in_order(long double sum, const long double *term, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sum += term[i];
	return sum;
}

/* Adds up the terms chunk by chunk, in order: the log loss's sum, as one loop over the values would make it. */
static void *loss_terms_sum(void *arg)
{
	struct loss_terms *l = arg;
	size_t chunks = (l->k + LOSS_CHUNK - 1) / LOSS_CHUNK;
	long double loss = 0;

	for (size_t c = 0; c < chunks; c++) {
		const long double *term = loss_terms_take(l, c);
		size_t n = c + 1 < chunks ? LOSS_CHUNK : l->k - c * LOSS_CHUNK;
		loss = add_in_order(loss, term, n);
	}
	l->loss = loss;
	return NULL;
}

/* Below this many distinct values a thread costs more than the scores it would take over. */
#define SCORES_THREAD_MIN 100000

/*
 * Per-row scores summed over distinct values; each value is one Murphy group. A value of one row (every
 * value, when confidences are continuous) takes a shorter path to the same bits: its count of 1 and
 * its 0 or 1 hit rate make each product and quotient exact, and each 0 term adds +0 to a sum that is
 * never -0.
 */
static void proper_scores(const struct rtk_stats_value_counts *v, size_t k, const struct totals *t,
			  struct rtk_stats_calibration *out)
{
	long double n = t->n, base_rate = t->pos / n;
	long double brier = 0, rel = 0, res = 0, loss = 0, confidence = 0;
	long double res_hit = (1 - base_rate) * (1 - base_rate), res_miss = (0 - base_rate) * (0 - base_rate);
	struct loss_terms *terms = NULL;
	pthread_t thread[LOSS_MAKERS], adder;
	unsigned makers = 0;
	bool adding = false;

	if (k >= SCORES_THREAD_MIN && (terms = calloc(1, sizeof(*terms)))) {
		terms->v = v, terms->k = k;
		pthread_mutex_init(&terms->lock, NULL);
		pthread_cond_init(&terms->changed, NULL);
		/* Every maker or none: a chunk whose maker did not start would never come. */
		while (makers < LOSS_MAKERS && !pthread_create(&thread[makers], NULL, loss_terms_run, terms))
			makers++;
		if (makers < LOSS_MAKERS) {
			pthread_mutex_lock(&terms->lock);
			terms->stop = true;
			pthread_cond_broadcast(&terms->changed);
			pthread_mutex_unlock(&terms->lock);
			while (makers)
				pthread_join(thread[--makers], NULL);
			pthread_mutex_destroy(&terms->lock);
			pthread_cond_destroy(&terms->changed);
			free(terms);
			terms = NULL;
		}
	}
	/* The terms are added up by a thread of their own, so these sums wait for no logarithm. */
	if (terms)
		adding = pthread_create(&adder, NULL, loss_terms_sum, terms) == 0;
	/*
	 * While every value so far has one row, the reliability sum is the Brier sum: (f - 1)^2 is
	 * (1 - f)^2 to the bit (rounding is symmetric in sign) and (f - 0)^2 is f^2, so the same terms
	 * went into both. It is added once until the first value of several rows, then copied.
	 */
	size_t i = 0;
	if (terms) {
		for (; i < k && v[i].pos + v[i].neg == 1; i++) {
			long double f = v[i].value;
			bool hit = v[i].pos != 0;
			confidence += f;
			brier += hit ? (1 - f) * (1 - f) : f * f;
			res += hit ? res_hit : res_miss;
		}
		rel = brier;
	}
	for (; i < k; i++) {
		long double f = v[i].value, size, hit_rate;

		if (!terms)
			loss += loss_term(&v[i]);
		if (v[i].pos + v[i].neg == 1) {
			bool hit = v[i].pos != 0;
			confidence += f;
			brier += hit ? (1 - f) * (1 - f) : f * f;
			rel += hit ? (f - 1) * (f - 1) : (f - 0) * (f - 0);
			res += hit ? res_hit : res_miss;
			continue;
		}
		size = v[i].pos + v[i].neg;
		confidence += size * f;
		brier += v[i].pos * (1 - f) * (1 - f) + v[i].neg * f * f;
		if (!size)
			continue;
		hit_rate = v[i].pos / size;
		rel += size * (f - hit_rate) * (f - hit_rate);
		res += size * (hit_rate - base_rate) * (hit_rate - base_rate);
	}
	if (terms) {
		if (adding)
			pthread_join(adder, NULL);
		else
			loss_terms_sum(terms);
		loss = terms->loss;
		while (makers)
			pthread_join(thread[--makers], NULL);
		pthread_mutex_destroy(&terms->lock);
		pthread_cond_destroy(&terms->changed);
		free(terms);
	}
	out->mean_confidence = (double)(confidence / n);
	out->accuracy = (double)base_rate;
	out->overconfidence = (double)((confidence - t->pos) / n);
	out->brier = (double)(brier / n);
	out->reliability = (double)(rel / n);
	out->resolution = (double)(res / n);
	out->uncertainty = (double)(base_rate * (1 - base_rate));
	out->log_loss = (double)(loss / n);
}

/* proper_scores in a second thread, while the first fills the bins: disjoint fields, same sums. */
struct scores_job {
	const struct rtk_stats_value_counts *v;
	size_t k;
	const struct totals *t;
	struct rtk_stats_calibration *out;
};

static void *scores_job_run(void *arg)
{
	struct scores_job *j = arg;
	proper_scores(j->v, j->k, j->t, j->out);
	return NULL;
}

static void stats_calibration_unavailable(struct rtk_stats_calibration *out)
{
	out->mean_confidence = out->accuracy = out->overconfidence = NAN;
	out->brier = out->reliability = out->resolution = out->uncertainty = NAN;
	out->ece_width = out->ece_mass = out->mce = out->log_loss = NAN;
}

int rtk_stats_calibrate(const struct rtk_stats_value_counts *v, size_t k, unsigned bins, struct rtk_stats_calibration *out)
{
	struct bin_sum width[RTK_STATS_MAX_BINS] = { 0 }, mass[RTK_STATS_MAX_BINS] = { 0 };
	struct totals t;
	uint64_t rows_before = 0;
	long double mce, unused;
	double edge[RTK_STATS_MAX_BINS + 1];
	unsigned mass_i = 0;
	struct scores_job job = { .v = v, .k = k, .t = &t, .out = out };
	pthread_t thread;
	bool threaded = false;
	int rc;

	if (bins < 1 || bins > RTK_STATS_MAX_BINS)
		return rtk_fail(RTK_EXIT_USAGE, "bin count %u is not between 1 and %d", bins, RTK_STATS_MAX_BINS);
	rc = count_totals(v, k, &t);
	if (rc)
		return rc;
	memset(out, 0, sizeof(*out));
	out->n = t.n;
	out->n_correct = t.pos;
	out->bins = bins;
	if (t.n && k >= SCORES_THREAD_MIN)
		threaded = pthread_create(&thread, NULL, scores_job_run, &job) == 0;
	for (unsigned i = 0; i <= bins; i++)
		edge[i] = (double)i / bins;
	for (size_t i = 0; t.n && i < k; i++) {
		bin_add(&width[width_bin(v[i].value, bins, edge)], &v[i]);
		mass_i = mass_bin(mass_i, rows_before, t.n, bins);
		bin_add(&mass[mass_i], &v[i]);
		rows_before += v[i].pos + v[i].neg;
	}
	reliability_table(width, bins, out->bin);
	if (!t.n) {
		stats_calibration_unavailable(out);
		return 0;
	}
	if (threaded)
		pthread_join(thread, NULL);
	else
		proper_scores(v, k, &t, out);
	out->ece_width = (double)expected_error(width, bins, t.n, &mce);
	out->mce = (double)mce;
	out->ece_mass = (double)expected_error(mass, bins, t.n, &unused);
	return 0;
}

/* ---- ROC curve ---- */

int rtk_stats_roc_curve(const struct rtk_stats_value_counts *v, size_t k, struct rtk_stats_roc_point **out, size_t *npoints)
{
	struct rtk_stats_roc_point *point;
	uint64_t tp = 0, fp = 0;
	struct totals t;
	int rc = count_totals(v, k, &t);

	if (rc)
		return rc;
	if (t.pos == 0 || t.neg == 0)
		return rtk_fail(RTK_EXIT_FAILURE, "a ROC curve needs both correct and wrong rows");
	point = malloc((k + 1) * sizeof(*point));
	if (!point)
		return rtk_oom();
	point[0] = (struct rtk_stats_roc_point){ .threshold = INFINITY, .fpr = 0.0, .tpr = 0.0 };
	for (size_t j = 1; j <= k; j++) {
		const struct rtk_stats_value_counts *c = &v[k - j];
		tp += c->pos;
		fp += c->neg;
		point[j] = (struct rtk_stats_roc_point){
			.threshold = c->value,
			.fpr = (double)((long double)fp / t.neg),
			.tpr = (double)((long double)tp / t.pos),
		};
	}
	*out = point;
	*npoints = k + 1;
	return 0;
}
