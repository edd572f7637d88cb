/* src/core/stat_time.h — struct stat's nanosecond times under one name on Linux (st_mtim) and macOS (st_mtimespec) */
#ifndef CORDON_STAT_TIME_H
#define CORDON_STAT_TIME_H
#include <sys/stat.h>

#if defined(__APPLE__)
#define CORDON_ST_MTIM(st) ((st)->st_mtimespec)
#define CORDON_ST_CTIM(st) ((st)->st_ctimespec)
#else
#define CORDON_ST_MTIM(st) ((st)->st_mtim)
#define CORDON_ST_CTIM(st) ((st)->st_ctim)
#endif
#endif
