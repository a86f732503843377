/* src/lib/jsonprint.c — cJSON_Print's formatted output, written to a stream as the tree is walked. */
#include "config.h"
#include "jsonprint.h"

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * A produced array is a cJSON array without children, marked with a type bit cJSON leaves alone, whose
 * valuestring (which cJSON_Delete frees, and nothing else reads on an array) holds how to make its elements.
 */
#define PRODUCED_BIT 0x4000

struct produced {
	rtk_jsonprint_produce_fn *produce;
	void *ctx;
	void (*free_ctx)(void *ctx);
};

static const struct produced *produced_of(const cJSON *item)
{
	return item && (item->type & PRODUCED_BIT) ? (const struct produced *)(const void *)item->valuestring : NULL;
}

/* A string with JSON's escapes, as cJSON writes them: the short ones, \u00XX for other controls, all else as is. */
static void print_string(const char *s, FILE *out)
{
	const unsigned char *p = (const unsigned char *)(s ? s : ""), *run = p;
	fputc('"', out);
	for (; *p; p++) {
		const char *esc = NULL;
		char hex[8];
		switch (*p) {
		case '"': esc = "\\\""; break;
		case '\\': esc = "\\\\"; break;
		case '\b': esc = "\\b"; break;
		case '\f': esc = "\\f"; break;
		case '\n': esc = "\\n"; break;
		case '\r': esc = "\\r"; break;
		case '\t': esc = "\\t"; break;
		default:
			if (*p < 32) {
				snprintf(hex, sizeof(hex), "\\u%04x", *p);
				esc = hex;
			}
		}
		if (esc) {
			fwrite(run, 1, (size_t)(p - run), out);
			fputs(esc, out);
			run = p + 1;
		}
	}
	fwrite(run, 1, (size_t)(p - run), out);
	fputc('"', out);
}

/* Whether a and b are the same double to within the last place, as cJSON checks a number read back. */
static int same_double(double a, double b)
{
	double most = fabs(a) > fabs(b) ? fabs(a) : fabs(b);
	return fabs(a - b) <= most * DBL_EPSILON;
}

/*
 * A number as cJSON 1.7.15 writes one: null for NaN and the infinities, else 15 significant digits when they
 * read back as the same double and 17 when not (so -0 stays -0); the decimal point is '.' whatever the locale.
 */
static void print_number(const cJSON *item, FILE *out)
{
	double d = item->valuedouble, back = 0;
	char buf[32];
	if (isnan(d) || isinf(d)) {
		fputs("null", out);
		return;
	}
	snprintf(buf, sizeof(buf), "%1.15g", d);
	if (sscanf(buf, "%lg", &back) != 1 || !same_double(back, d))
		snprintf(buf, sizeof(buf), "%1.17g", d);
	for (char *c = buf; *c; c++)
		if (*c == ',') /* a locale's decimal comma */
			*c = '.';
	fputs(buf, out);
}

static void print_value(const cJSON *item, unsigned depth, FILE *out);

/* Where an array's elements are written: each after a ", " but the first. */
struct element_printer {
	FILE *out;
	unsigned depth;
	bool first;
};

static void print_element(void *user, const cJSON *element)
{
	struct element_printer *p = user;
	if (!p->first)
		fputs(", ", p->out);
	p->first = false;
	print_value(element, p->depth, p->out);
}

/* An array's items are one level deeper, as cJSON counts it, though they stand on its line. */
static void print_array(const cJSON *item, unsigned depth, FILE *out)
{
	struct element_printer p = { out, depth + 1, true };
	fputc('[', out);
	rtk_jsonprint_each(item, print_element, &p);
	fputc(']', out);
}

static void tabs(unsigned n, FILE *out)
{
	while (n--)
		fputc('\t', out);
}

static void print_object(const cJSON *item, unsigned depth, FILE *out)
{
	fputs("{\n", out);
	depth++;
	for (const cJSON *c = item->child; c; c = c->next) {
		tabs(depth, out);
		print_string(c->string, out);
		fputs(":\t", out);
		print_value(c, depth, out);
		fputs(c->next ? ",\n" : "\n", out);
	}
	tabs(depth - 1, out);
	fputc('}', out);
}

static void print_value(const cJSON *item, unsigned depth, FILE *out)
{
	switch (item->type & 0xff) {
	case cJSON_NULL: fputs("null", out); break;
	case cJSON_False: fputs("false", out); break;
	case cJSON_True: fputs("true", out); break;
	case cJSON_Number: print_number(item, out); break;
	case cJSON_Raw: fputs(item->valuestring ? item->valuestring : "", out); break;
	case cJSON_String: print_string(item->valuestring, out); break;
	case cJSON_Array: print_array(item, depth, out); break;
	case cJSON_Object: print_object(item, depth, out); break;
	default: break;
	}
}

void rtk_jsonprint_write(const cJSON *item, FILE *out)
{
	if (item)
		print_value(item, 0, out);
}

cJSON *rtk_jsonprint_produced(rtk_jsonprint_produce_fn *produce, void *ctx, void (*free_ctx)(void *ctx))
{
	cJSON *array = cJSON_CreateArray();
	struct produced *p = array ? cJSON_malloc(sizeof(*p)) : NULL;
	if (!p) {
		cJSON_Delete(array);
		if (free_ctx)
			free_ctx(ctx);
		return NULL;
	}
	*p = (struct produced){ produce, ctx, free_ctx };
	array->valuestring = (char *)(void *)p;
	array->type |= PRODUCED_BIT;
	return array;
}

/* What rtk_jsonprint_strings holds. */
struct string_list {
	char *block;
	size_t n;
};

static void strings_produce(const void *ctx, rtk_jsonprint_sink_fn *sink, void *sink_ctx)
{
	const struct string_list *list = ctx;
	const char *text = list->block;
	for (size_t i = 0; i < list->n; i++, text += strlen(text) + 1) {
		cJSON element = { .type = cJSON_String | cJSON_IsReference, .valuestring = (char *)text };
		sink(sink_ctx, &element);
	}
}

static void strings_free(void *ctx)
{
	struct string_list *list = ctx;
	free(list->block);
	free(list);
}

cJSON *rtk_jsonprint_strings(char *block, size_t n)
{
	struct string_list *list = malloc(sizeof(*list));
	if (!list) {
		free(block);
		return NULL;
	}
	*list = (struct string_list){ block, n };
	return rtk_jsonprint_produced(strings_produce, list, strings_free);
}

void rtk_jsonprint_each(const cJSON *array, rtk_jsonprint_sink_fn *sink, void *sink_ctx)
{
	const struct produced *p = produced_of(array);
	if (p)
		p->produce(p->ctx, sink, sink_ctx);
	else if (cJSON_IsArray(array))
		for (const cJSON *c = array->child; c; c = c->next)
			sink(sink_ctx, c);
}

static void count_one(void *count, const cJSON *element)
{
	(void)element;
	++*(size_t *)count;
}

size_t rtk_jsonprint_count(const cJSON *array)
{
	size_t count = 0;
	rtk_jsonprint_each(array, count_one, &count);
	return count;
}

/* Frees the contexts of the produced arrays in item's tree; cJSON_Delete frees the rest. */
static void free_contexts(cJSON *item)
{
	for (; item; item = item->next) {
		const struct produced *p = produced_of(item);
		if (p && p->free_ctx)
			p->free_ctx(p->ctx);
		free_contexts(item->child);
	}
}

void rtk_jsonprint_delete(cJSON *item)
{
	if (!item)
		return;
	const struct produced *p = produced_of(item);
	if (p && p->free_ctx)
		p->free_ctx(p->ctx);
	free_contexts(item->child);
	cJSON_Delete(item);
}
