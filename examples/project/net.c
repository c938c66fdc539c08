#include "init.h"
#include <stdio.h>

static void net_core(void) { puts("net: core"); }
register_init(net_core);
static void net_sockets(void) { puts("net: sockets"); }
register_init(net_sockets);
