/*
 * banned.h - C library functions arena's code may not call (as Git's
 * banned.h): each has a bounded or reentrant replacement that says what
 * it does with a short buffer.
 *
 *   strcpy, strcat, strncpy, strncat  ->  snprintf, strbuf, xstrdup
 *   sprintf, vsprintf                 ->  snprintf, strbuf_addf, xasprintf
 *   strtok                            ->  strtok_r, or parse by hand
 *   gets                              ->  fgets, getline
 *   gmtime, localtime, ctime, asctime ->  gmtime_r, localtime_r, strftime
 *   tmpnam, mktemp                    ->  mkstemp, mkdtemp
 *
 * A call becomes a compile error naming the function
 * ("sorry_strcpy_is_a_banned_function").  arena/util.h includes this
 * header last, so every source that uses arena's helpers is covered; the
 * system headers that declare these functions are included first, here,
 * so that their declarations are read before the names are taken.
 */
#ifndef ARENA_BANNED_H
#define ARENA_BANNED_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BANNED(func) sorry_##func##_is_a_banned_function

#undef strcpy
#define strcpy(x, y) BANNED(strcpy)
#undef strcat
#define strcat(x, y) BANNED(strcat)
#undef strncpy
#define strncpy(x, y, n) BANNED(strncpy)
#undef strncat
#define strncat(x, y, n) BANNED(strncat)
#undef sprintf
#define sprintf(...) BANNED(sprintf)
#undef vsprintf
#define vsprintf(...) BANNED(vsprintf)
#undef strtok
#define strtok(x, y) BANNED(strtok)
#undef gets
#define gets(x) BANNED(gets)
#undef gmtime
#define gmtime(t) BANNED(gmtime)
#undef localtime
#define localtime(t) BANNED(localtime)
#undef ctime
#define ctime(t) BANNED(ctime)
#undef asctime
#define asctime(t) BANNED(asctime)
#undef tmpnam
#define tmpnam(x) BANNED(tmpnam)
#undef mktemp
#define mktemp(x) BANNED(mktemp)

#endif /* ARENA_BANNED_H */
