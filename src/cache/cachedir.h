/* cachedir: where the cache lives when neither an option, KWARM_CACHE nor the
 * spec names it. */
#ifndef KWARM_CACHEDIR_H
#define KWARM_CACHEDIR_H

/* $XDG_CACHE_HOME/kwarm, else $HOME/.cache/kwarm (HOME unset: /tmp). Caller frees. */
char *cache_default_dir(void);

#endif
