#include "warden_spawn.h"
int warden_spawn_placeholder(void) { return 0; }
