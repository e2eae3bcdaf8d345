// SPDX-License-Identifier: GPL-2.0
/*
 * json_doc.c - JSON documents built with json-c and printed (json_doc.h).
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdlib.h>

#include "json_doc.h"
#include "tool_util.h"

#define JDOC_KEY_FLAGS	(JSON_C_OBJECT_ADD_KEY_IS_NEW | \
			 JSON_C_OBJECT_ADD_CONSTANT_KEY)

int jdoc_add(struct json_object *obj, const char *key, struct json_object *val)
{
	if (!obj || !val ||
	    json_object_object_add_ex(obj, key, val, JDOC_KEY_FLAGS)) {
		json_object_put(val);
		return -1;
	}
	return 0;
}

int jdoc_add_null(struct json_object *obj, const char *key)
{
	return obj ? json_object_object_add_ex(obj, key, NULL, JDOC_KEY_FLAGS) :
		     -1;
}

int jdoc_add_u64(struct json_object *obj, const char *key, __u64 val)
{
	return jdoc_add(obj, key, json_object_new_uint64(val));
}

int jdoc_add_bool(struct json_object *obj, const char *key, bool val)
{
	return jdoc_add(obj, key, json_object_new_boolean(val));
}

int jdoc_add_str(struct json_object *obj, const char *key, const char *val)
{
	return jdoc_add(obj, key, json_object_new_string(val));
}

int jdoc_add_strf(struct json_object *obj, const char *key, const char *fmt, ...)
{
	struct json_object *val = NULL;
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) >= 0) {
		val = json_object_new_string(s);
		free(s);
	}
	va_end(ap);
	return jdoc_add(obj, key, val);
}

int jdoc_append(struct json_object *arr, struct json_object *val)
{
	if (!arr || !val || json_object_array_add(arr, val)) {
		json_object_put(val);
		return -1;
	}
	return 0;
}

struct json_object *jdoc_fixed(double val, int decimals)
{
	char text[64];

	snprintf(text, sizeof(text), "%.*f", decimals, val);
	return json_object_new_double_s(strtod(text, NULL), text);
}

struct json_object *jdoc_finish(struct json_object *obj, int err)
{
	if (!err)
		return obj;
	json_object_put(obj);
	return NULL;
}

int jdoc_print(FILE *f, struct json_object *doc, int flags)
{
	const char *text = NULL;

	if (doc)
		text = json_object_to_json_string_ext(doc, flags |
						      JSON_C_TO_STRING_NOSLASHESCAPE);
	if (text)
		fprintf(f, "%s\n", text);
	else
		error("out of memory: no JSON output");
	json_object_put(doc);
	return text ? 0 : -1;
}
