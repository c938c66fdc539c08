#include "demo.h"

DEMO_INIT(init)
early_initcall(init);

DEMO_INIT(sched_init)
core_initcall(sched_init);

DEMO_INIT(sched_late)
late_initcall(sched_late);
