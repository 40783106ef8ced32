/*
 * plain_check.h - the checks of the C++ unit tests that run a GPU header
 * on its host emulation (test_gpu_gen.cpp, test_gpu_cmp.cpp), which
 * cmocka, a C library, does not serve: CHECK counts a failure and says
 * where and why, and plain_check_exit ends the test with the verdict.
 */
#ifndef ARENA_PLAIN_CHECK_H
#define ARENA_PLAIN_CHECK_H

#include <stdio.h>

static int plain_check_failures;

#define CHECK(cond, ...)                                                     \
	do {                                                                 \
		if (!(cond)) {                                               \
			fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
			fprintf(stderr, __VA_ARGS__);                        \
			fputc('\n', stderr);                                 \
			plain_check_failures++;                              \
		}                                                            \
	} while (0)

/* main's return value: 0 when every CHECK held, else 1 (and how many
 * failed, on stderr). */
static inline int plain_check_exit(const char *test)
{
	if (plain_check_failures) {
		fprintf(stderr, "%s: %d failure(s)\n", test,
			plain_check_failures);
		return 1;
	}
	printf("%s: all checks passed\n", test);
	return 0;
}

#endif
