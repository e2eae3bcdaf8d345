// SPDX-License-Identifier: GPL-2.0
/*
 * json_out.c - JSON strings on stdout, quoted and escaped (json_out.h).
 */
#include <stdio.h>

#include "json_out.h"

void json_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			printf("\\u%04x", *s);
		else
			putchar(*s);
	}
	putchar('"');
}
