/* coalesce il (tools/il_cmd.c): argv after "il"; returns the exit code. */
#ifndef CO_IL_CMD_H
#define CO_IL_CMD_H

int coalesce_il(int argc, char **argv);

#endif
