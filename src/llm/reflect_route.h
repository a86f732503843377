/* src/llm/reflect_route.h — where a verdict's lesson goes in the workspace: ERROR and PREFERENCE lessons to memory files, every verdict to a log. */
#ifndef RTK_REFLECT_ROUTE_H
#define RTK_REFLECT_ROUTE_H

#include <cjson/cJSON.h>

/* The files of a workspace, relative to it. */
#define REFLECT_ROUTE_ERROR_PATTERNS "rules/experience/error_patterns.md"
#define REFLECT_ROUTE_ERROR_LOG "memory/user/error_log.jsonl"
#define REFLECT_ROUTE_PREFERENCES "memory/user/preferences.md"
#define REFLECT_ROUTE_REFLECTIONS "memory/user/reflections.jsonl"

/* One verdict to record, and whose it is. */
struct reflect_route_lesson {
	const char *task_id;
	const char *when;      /* the time recorded, as rtk_time_format writes it */
	const char *model_id;  /* the model that judged the task */
	const cJSON *verdict;  /* as reflect_answer makes them */
	const char *error;     /* why reflection failed, or NULL when it did not */
};

/* workspace + "/" + rel, malloc'd; NULL when out of memory. */
char *reflect_route_path(const char *workspace, const char *rel);

/* Creates the workspace folders the routes write into (and workspace itself). 0, or RTK_EXIT_FAILURE. */
int reflect_route_prepare(const char *workspace);

/*
 * Appends the lesson where its type belongs, each record whole under an flock, so runs at once
 * never tear or lose one:
 *   ERROR       "## LESSON" and its details to REFLECT_ROUTE_ERROR_PATTERNS, unless a heading
 *               "## LESSON" is there already; the verdict as one line to REFLECT_ROUTE_ERROR_LOG
 *   PREFERENCE  "- LESSON (task `ID`, WHEN)" to REFLECT_ROUTE_PREFERENCES, unless "- LESSON (" is
 *               there already
 *   every one   {task_id, time, model, verdict, error} as one line to REFLECT_ROUTE_REFLECTIONS
 * A failed reflection (l->error set) is only logged to REFLECT_ROUTE_REFLECTIONS. Each file
 * written is added to routed_to (an array) by its relative name, or as "(lesson already
 * recorded)". A failed write does not stop the others: 0, or the first failure's code, its reason
 * the one recorded.
 */
int reflect_route_write(const char *workspace, const struct reflect_route_lesson *l, cJSON *routed_to);

#endif
