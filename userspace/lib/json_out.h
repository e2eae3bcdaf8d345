/* SPDX-License-Identifier: GPL-2.0 */
/*
 * json_out.h - the little JSON output the agent writes by hand: strings,
 * quoted and escaped.  (To be replaced by a JSON library.)
 */
#ifndef SYMOFAN_LIB_JSON_OUT_H
#define SYMOFAN_LIB_JSON_OUT_H

/* @s as a JSON string, quoted and escaped, on stdout */
void json_string(const char *s);

#endif /* SYMOFAN_LIB_JSON_OUT_H */
