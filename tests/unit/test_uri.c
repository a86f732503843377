/* tests/unit/test_uri.c — RFC 3986 reference resolution: the RFC's own examples, URNs, fragments. */
#include "unit.h"
#include "schema/uri.h"

#include <stdlib.h>
#include <string.h>

static void expect(const char *base, const char *ref, const char *want)
{
	char *got = uri_resolve(base, ref);
	assert_non_null(got);
	assert_string_equal(got, want);
	free(got);
}

static void rfc3986_normal_examples(void **state)
{
	(void)state;
	const char *b = "http://a/b/c/d;p?q";
	expect(b, "g", "http://a/b/c/g");
	expect(b, "./g", "http://a/b/c/g");
	expect(b, "g/", "http://a/b/c/g/");
	expect(b, "/g", "http://a/g");
	expect(b, "//g", "http://g");
	expect(b, "?y", "http://a/b/c/d;p?y");
	expect(b, "#s", "http://a/b/c/d;p?q#s");
	expect(b, "", "http://a/b/c/d;p?q");
	expect(b, ".", "http://a/b/c/");
	expect(b, "..", "http://a/b/");
	expect(b, "../g", "http://a/b/g");
	expect(b, "../../g", "http://a/g");
	expect(b, "../../../g", "http://a/g");
	expect(b, "g;x=1/../y", "http://a/b/c/y");
}

static void schema_style_references(void **state)
{
	(void)state;
	expect("http://localhost:1234/draft2020-12/tree", "node", "http://localhost:1234/draft2020-12/node");
	expect("urn:uuid:deadbeef-1234-0000-0000-4321feebdaed", "#/$defs/bar",
	       "urn:uuid:deadbeef-1234-0000-0000-4321feebdaed#/$defs/bar");
	expect(NULL, "#foo", "#foo");
	expect("", "item.json", "item.json");
	expect("file:///tmp/s.json", "other.json#/a", "file:///tmp/other.json#/a");
	expect("https://x.test/root", "list", "https://x.test/list");
	char *bare = uri_strip_fragment("http://a/b#c");
	assert_string_equal(bare, "http://a/b");
	free(bare);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test(rfc3986_normal_examples),
	cmocka_unit_test(schema_style_references),
};

RTK_UNIT_MAIN(tests)
