/* applets/skeleton.c — copy this file to applets/NAME.c and delete the parts you don't need. As it stands
 * it counts a file's lines and the long ones; make check builds it into a program of its own and runs it. */

/* config.h first, always; then applet.h (descriptor, options, output) and the headers of the one engine
 * the applet calls. An applet includes src/ only, never another applet (tests/cli/layering.sh). */
#include "config.h"
#include "applet.h"
#include "lib/err.h"
#include "lib/fsutil.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Every option's value in one static struct, defaults set here: main.c parses argv before run. */
static struct skeleton_opts {
	bool skip_blank;
	const char *title;
	long width;
	double max_long;
} o = { .title = "Skeleton", .width = 80, .max_long = 0.5 };

/* One entry per option, one of each kind here. The same table parses, prints --help and is checked
 * against the man page (tests/cli/help_man.sh). -h, --format, --json, --progress and --no-progress are
 * common: don't add them. */
static const struct rtk_opt options[] = {
	RTK_OPT_BOOL('b', "skip-blank", &o.skip_blank, "do not count blank lines"),
	RTK_OPT_DOUBLE(0, "max-long", &o.max_long, "F", "too long when at least this share of lines is long (default 0.5)"),
	RTK_OPT_STRING(0, "title", &o.title, "TEXT", "the markdown heading (default Skeleton)"),
	RTK_OPT_INT('w', "width", &o.width, "N", "a line longer than N bytes is long (default 80)"),
	RTK_OPT_END(),
};

/* What the parser cannot judge: operands and ranges. RTK_EXIT_USAGE, and main.c prints the reason. */
static int skeleton_check_options(int argc)
{
	if (argc != 1)
		return rtk_fail(RTK_EXIT_USAGE, "takes one FILE ('-' for standard input)");
	if (o.width < 1)
		return rtk_fail(RTK_EXIT_USAGE, "--width must be at least 1");
	if (!(o.max_long >= 0 && o.max_long <= 1))
		return rtk_fail(RTK_EXIT_USAGE, "--max-long must be in [0, 1]");
	return 0;
}

/* The engine. A real applet calls one function of a cluster in src/ (githistory_report,
 * riskfloor_assess), which never prints and returns an RTK_EXIT_* code; a lib/ read stands in here. */
static int skeleton_count(const char *path, long *lines, long *long_lines)
{
	char *text;
	size_t len;
	int rc = rtk_fs_read_file(path, &text, &len);
	if (rc)
		return rc;
	*lines = *long_lines = 0;
	for (const char *p = text, *end = text + len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)((nl ? nl : end) - p);
		if (n || !o.skip_blank) {
			(*lines)++;
			*long_lines += n > (size_t)o.width;
		}
		p = nl ? nl + 1 : end;
	}
	free(text);
	return 0;
}

/* Markdown for people (the default output). It reads only the result, so both formats say the same. */
static void skeleton_render_md(const cJSON *r, struct rtk_out_md *md)
{
	const cJSON *p = cJSON_GetObjectItemCaseSensitive(r, "parameters");
	struct rtk_out_md_table *t;

	rtk_out_md_heading(md, 1, "%s", rtk_out_json_str(p, "title"));
	rtk_out_md_para(md, "**%s**: %s.", rtk_out_json_str(p, "file"),
		    cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "too_long")) ? "too long" : "fine");
	t = rtk_out_md_table(md, "rrr", "lines", "longer than width", "share");
	rtk_out_md_cell(t, "%.0f", rtk_out_json_num(r, "lines"));
	rtk_out_md_cell(t, "%.0f", rtk_out_json_num(r, "long_lines"));
	rtk_out_md_cell(t, "%s", rtk_out_md_num(rtk_out_json_num(r, "long_share"), 2)); /* n/a for null */
	rtk_out_md_table_end(t);
}

/* argv holds the operands only; ctx says the format. Check, call the engine, build the result, emit. */
static int skeleton_run(int argc, char **argv, const struct rtk_applet_ctx *ctx)
{
	cJSON *result, *params;
	long lines, long_lines;
	int rc;

	if ((rc = skeleton_check_options(argc)) || (rc = skeleton_count(argv[0], &lines, &long_lines)))
		return rc;
	/* The envelope: "schema": "rtk.skeleton.v1", rtk_version, generated_at and an empty parameters,
	 * which gets every option. The applet's members follow; its schema in schemas/ describes them all. */
	if (!(result = rtk_out_result_new("skeleton")))
		return rtk_oom();
	params = cJSON_GetObjectItemCaseSensitive(result, "parameters");
	cJSON_AddStringToObject(params, "file", argv[0]);
	cJSON_AddBoolToObject(params, "skip_blank", o.skip_blank);
	cJSON_AddStringToObject(params, "title", o.title);
	cJSON_AddNumberToObject(params, "width", (double)o.width);
	cJSON_AddNumberToObject(params, "max_long", o.max_long);
	cJSON_AddNumberToObject(result, "lines", (double)lines);
	cJSON_AddNumberToObject(result, "long_lines", (double)long_lines);
	/* NaN has no JSON form: rtk_out_json_add_number writes null, and the schema allows null there. */
	rtk_out_json_add_number(result, "long_share", lines ? (double)long_lines / (double)lines : NAN);
	cJSON_AddBoolToObject(result, "too_long", lines && (double)long_lines >= o.max_long * (double)lines);
	rc = rtk_out_emit(result, ctx->format, skeleton_render_md, ctx->out);
	cJSON_Delete(result);
	return rc;
}

/* The descriptor, the file's one global: rtk_applet_<id>, after its line RTK_APPLET(<id>) in applets.def. */
const struct rtk_applet rtk_applet_skeleton = {
	.name = "skeleton", /* the command: the id with - for _ */
	.summary = "count a file's lines and the long ones (the applet to copy)",
	.usage = { "skeleton [OPTIONS] FILE", NULL }, /* the man page's SYNOPSIS, line for line */
	.options = options,
	.run = skeleton_run,
	/* .always_exit_zero = true: only for a hook whose caller reads any non-zero exit as "block" */
};
