/* SPDX-License-Identifier: GPL-2.0 */
/*
 * symphony_cmd.h - "symofan symphony ...": Symphony as tc-BPF on switch
 * ports (symphony_bpf.c).
 */
#ifndef _SYMOFAN_SYMPHONY_CMD_H
#define _SYMOFAN_SYMPHONY_CMD_H

#include "command.h"

extern const struct command symphony_commands[];

#endif /* _SYMOFAN_SYMPHONY_CMD_H */
