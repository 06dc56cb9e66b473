#include "core/workload.h"
