/* cachedir: which folder is the cache, by one precedence for every command. */
#ifndef KWARM_CACHEDIR_H
#define KWARM_CACHEDIR_H

/* The cache folder: opt, else $KWARM_CACHE (both made absolute), else
 * spec_cache (the spec's 'cache', may be NULL), else, with use_default,
 * $XDG_CACHE_HOME/kwarm or $HOME/.cache/kwarm (HOME unset: /tmp); else NULL.
 * Caller frees. */
char *cache_choose_dir(const char *opt, const char *spec_cache, int use_default);

#endif
