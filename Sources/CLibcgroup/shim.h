#ifndef APPWARDEN_CLIBCGROUP_SHIM_H
#define APPWARDEN_CLIBCGROUP_SHIM_H
#include <libcgroup.h>
#endif
