/*
 * candidate_variant.h - a candidate built with one more define: the
 * tests that need a cheat in several strengths keep one source, whose
 * #ifdef or #ifndef reads the macro, and write the variant here.
 * Include after <cmocka.h> (failures are assertions).
 */
#ifndef ARENA_TEST_CANDIDATE_VARIANT_H
#define ARENA_TEST_CANDIDATE_VARIANT_H

#include <stdlib.h>

#include "arena/util.h"

/* <src_dir>/<file> with `#define <macro> <value>` first, as
 * <parent>/<name>_<macro>_<value>/<file>, <name> being src_dir's last
 * component; returns that directory (the caller frees it). */
static char *candidate_variant(const char *src_dir, const char *file,
			       const char *parent, const char *macro,
			       int value)
{
	const char *name = strrchr(src_dir, '/') ? strrchr(src_dir, '/') + 1
						 : src_dir;
	char *src = path_join(src_dir, file);
	char *dir = xasprintf("%s/%s_%s_%d", parent, name, macro, value);
	char *dst = path_join(dir, file);
	struct strbuf sb = STRBUF_INIT;
	struct errbuf e;
	char *text;
	size_t len;

	errbuf_init(&e);
	assert_int_equal(mkdir_p(dir, &e), 0);
	assert_int_equal(file_read_all(src, 1 << 20, &text, &len, &e), 0);
	strbuf_addf(&sb, "#define %s %d\n%s", macro, value, text);
	assert_int_equal(file_write_atomic_str(dst, sb.buf, &e), 0);
	strbuf_release(&sb);
	free(text);
	free(src);
	free(dst);
	return dir;
}

#endif /* ARENA_TEST_CANDIDATE_VARIANT_H */
