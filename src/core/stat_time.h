/* src/core/stat_time.h — struct stat's nanosecond times by one name: POSIX 2008's st_mtim and st_ctim,
 * which macOS calls st_mtimespec and st_ctimespec. */
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
