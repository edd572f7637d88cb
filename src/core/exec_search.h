/* src/core/exec_search.h — finding a bare command name along PATH, one way for every caller. */
#ifndef CORDON_EXEC_SEARCH_H
#define CORDON_EXEC_SEARCH_H
#include <stdbool.h>

/* The PATH searched when the command's environment names none (the one execvp falls back to). */
#define CORDON_DEFAULT_PATH "/usr/local/bin:/usr/bin:/bin"

/* Calls `try` with each place a search for the bare name `file` looks, in order, along `path` (NULL: the
 * default); an empty element is the current directory ("./file"). A place longer than PATH_MAX is
 * skipped. Stops and returns true as soon as `try` does. */
bool cordon_exec_search(const char *path, const char *file, bool (*try)(const char *candidate, void *ud), void *ud);

/* The PATH of the environment `envp` (not cordon's own), or NULL. */
const char *cordon_exec_env_path(char *const *envp);

/* execve of `file`, searched along envp's PATH when it holds no '/', as execvp does: a place that is not
 * there (ENOENT, ENOTDIR) moves on, a place that may not be run (EACCES) moves on but is remembered, any
 * other error ends the search. Returns only on failure, with the errno that describes it. */
int cordon_exec_path(const char *file, char *const argv[], char *const envp[]);
#endif
