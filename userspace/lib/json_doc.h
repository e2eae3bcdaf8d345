/* SPDX-License-Identifier: GPL-2.0 */
/*
 * json_doc.h - JSON documents built with json-c, as the tools print them.
 * An object lists its keys in the order they were added; string values
 * are copied, keys are not.  Each jdoc_add*() and jdoc_append() takes an
 * object or array and a value just made, either NULL when its allocation
 * failed, and returns 0, or -1 when the value could not be added (it is
 * freed): the caller ORs the results together, jdoc_finish() drops an
 * object with a hole, and jdoc_print() of what is left says so.
 */
#ifndef SYMOFAN_LIB_JSON_DOC_H
#define SYMOFAN_LIB_JSON_DOC_H

#include <stdbool.h>
#include <stdio.h>
#include <json-c/json.h>
#include <linux/types.h>

/* Add @val under @key, a string that outlives the object (a literal). */
int jdoc_add(struct json_object *obj, const char *key, struct json_object *val);
/* @key with the value null (nothing to say). */
int jdoc_add_null(struct json_object *obj, const char *key);
int jdoc_add_u64(struct json_object *obj, const char *key, __u64 val);
int jdoc_add_bool(struct json_object *obj, const char *key, bool val);
int jdoc_add_str(struct json_object *obj, const char *key, const char *val);
int __attribute__((format(printf, 3, 4)))
jdoc_add_strf(struct json_object *obj, const char *key, const char *fmt, ...);

/* Append @val to array @arr, as jdoc_add() adds to an object. */
int jdoc_append(struct json_object *arr, struct json_object *val);

/* @val as a number written with @decimals decimals ("%.*f"), or NULL. */
struct json_object *jdoc_fixed(double val, int decimals);

/* @obj, complete, when @err is 0; else NULL (and @obj freed). */
struct json_object *jdoc_finish(struct json_object *obj, int err);

/*
 * Writes @doc to @f with json-c's @flags (JSON_C_TO_STRING_PLAIN: one
 * line; JSON_C_TO_STRING_PRETTY: to be read by people), slashes as they
 * are, and a newline, then frees it.  0, or -1 after an error message
 * when @doc is NULL (a part of it could not be made) or json-c cannot
 * make its text.
 */
int jdoc_print(FILE *f, struct json_object *doc, int flags);

#endif /* SYMOFAN_LIB_JSON_DOC_H */
