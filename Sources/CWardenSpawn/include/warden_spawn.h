#ifndef APPWARDEN_SPAWN_H
#define APPWARDEN_SPAWN_H
int warden_spawn_placeholder(void);
#endif
