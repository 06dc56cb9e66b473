/* The instruction mix of SPIR-V assembly (il_spirv.c), for co_il_count. */
#ifndef CO_IL_SPIRV_H
#define CO_IL_SPIRV_H

#include "coalesce.h"

co_status co_il_count_spirv(const char *text, co_il_mix *out);

#endif
