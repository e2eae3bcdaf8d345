/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ofan.h - the agent's Ofan commands: "symofan ofan load|unload"
 * (ofan_load.c), "status" (ofan_status.c), "set-mode|port"
 * (ofan_control.c) and "symofan daemon" (daemon.c).
 */
#ifndef _SYMOFAN_OFAN_H
#define _SYMOFAN_OFAN_H

#include <linux/types.h>

#include "command.h"
#include "ofan_config.h"

int cmd_ofan_load(const struct command *cmd, int argc, char **argv);
int cmd_ofan_unload(const struct command *cmd, int argc, char **argv);
int cmd_ofan_status(const struct command *cmd, int argc, char **argv);
int cmd_ofan_set_mode(const struct command *cmd, int argc, char **argv);
int cmd_ofan_port(const struct command *cmd, int argc, char **argv);
int cmd_daemon(const struct command *cmd, int argc, char **argv);

#endif /* _SYMOFAN_OFAN_H */
