/*
 * test_host_timing.c - what a host request is charged (host_charged_ns,
 * engine/src/eval/timing_host.c; docs/evaluator.md "What a call costs"):
 * the CPU time less the protocol's cost, never less than half of the CPU
 * time, never below the floor.  The numbers are the ones seen when the
 * old rule (cpu - o alone) rejected an honest kernel.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdbool.h>

#include "eval_internal.h"

/* make quickstart, 2026-12-02, c2c/layernorm rule.prime: pings said a
 * request costs 144.6 us; the autotuned candidate's whole request used
 * 75 us of CPU time.  cpu - o is negative; the charge is half of 75. */
static void test_protocol_cost_above_the_request_charges_half(void **s)
{
	bool bound = false;

	(void)s;
	double t = host_charged_ns(75e3, 144.6e3, 1e3, &bound);
	assert_true(bound);
	assert_true(fabs(t - 37.5e3) < 1e-6);
}

/* A call well above the protocol's cost keeps cpu - o. */
static void test_long_call_is_cpu_less_the_protocol(void **s)
{
	bool bound = true;

	(void)s;
	double t = host_charged_ns(2000e3, 63e3, 1e3, &bound);
	assert_false(bound);
	assert_true(fabs(t - 1937e3) < 1e-6);
	assert_true(fabs(host_charged_ns(140e3, 63e3, 1e3, NULL) - 77e3) <
		    1e-6);
}

/* The floor wins over both, and is not "the share decided". */
static void test_floor_holds(void **s)
{
	bool bound = true;

	(void)s;
	double t = host_charged_ns(1e3, 900.0, 5e3, &bound);
	assert_false(bound);
	assert_true(fabs(t - 5e3) < 1e-6);
}

/* An honest call does at least twice the roofline floor's work (the
 * floor's margins are 2 for flops, 16 for bytes), and its request adds
 * some protocol cost: whatever o the pings said, its charge stays above
 * the floor, so the roofline check never names it. */
static void test_honest_call_is_never_charged_at_the_floor(void **s)
{
	(void)s;
	for (double roof = 100.0; roof <= 1e6; roof *= 3.7)
		for (double work = 2 * roof; work <= 40 * roof; work *= 1.9)
			for (double ovh = 1e3; ovh <= 400e3; ovh *= 2.3)
				for (double o = 0; o <= 1e6; o += 13.7e3) {
					double lo = fmax(roof, 100.0);
					double t = host_charged_ns(work + ovh, o,
								   lo, NULL);
					assert_true(t > roof);
				}
}

/* Never more than the CPU time the kernel counted (above the floor),
 * and a request that did nothing but the protocol gives at most
 * 2 (B - o) / o against a baseline request of B. */
static void test_charge_never_exceeds_the_accounting(void **s)
{
	(void)s;
	for (double cpu = 1e3; cpu <= 1e7; cpu *= 1.7)
		for (double o = 0; o <= 2e5; o += 7.1e3)
			assert_true(host_charged_ns(cpu, o, 100.0, NULL) <=
				    cpu);
	double o = 60e3, base = 200e3;
	double ratio = host_charged_ns(base, o, 100.0, NULL) /
		       host_charged_ns(o, o, 100.0, NULL);
	assert_true(ratio <= 2 * (base - o) / o + 1e-9);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(
			test_protocol_cost_above_the_request_charges_half),
		cmocka_unit_test(test_long_call_is_cpu_less_the_protocol),
		cmocka_unit_test(test_floor_holds),
		cmocka_unit_test(
			test_honest_call_is_never_charged_at_the_floor),
		cmocka_unit_test(test_charge_never_exceeds_the_accounting),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
