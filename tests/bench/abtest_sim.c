/*
 * abtest_sim.c - the simulations behind docs/statistics.md §11, at full
 * size: 2000 (or argv[1]) simulated comparisons per scenario with the
 * shipped 4000 bootstrap replicates.  The simulator is test_abtest.c's
 * (included here, its main renamed), so the table and the unit tests
 * draw the same experiments.  Built and run by tests/bench/abtest_sim.sh;
 * takes about 10 CPU-minutes for all scenarios.
 */
#define main test_abtest_main
#include "../unit/test_abtest.c"
#undef main

static void report(const char *name, struct sim *s, int runs, uint64_t seed)
{
	struct coverage c;

	simulate(s, runs, seed, &c);
	printf("%s (%d comparisons)\n", name, c.runs);
	for (int m = 0; m < 3; m++)
		printf("  %-9s covered %d/%d = %.4f\n", ab_metric_name(m),
		       c.covered[m], c.defined[m],
		       (double)c.covered[m] / c.defined[m]);
	printf("  B differs (speedup interval excludes 1): %.4f\n"
	       "  some per-task discovery: %.4f\n"
	       "  false discovery rate: %.4f, share of real effects found: "
	       "%.4f\n", (double)c.differs / c.runs,
	       (double)c.any_discovery / c.runs, c.fdp_sum / c.runs,
	       c.power_runs ? c.power_sum / c.power_runs : 0);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	int runs = argc > 1 ? atoi(argv[1]) : 2000;
	struct sim s;

	if (runs < 1)
		runs = 2000;
#define SCENARIO(name, seed, setup)                                          \
	do {                                                                 \
		sim_default(&s);                                             \
		s.iters = 0;                                                 \
		setup;                                                       \
		report(name, &s, runs, seed);                                \
	} while (0)
	SCENARIO("40 tasks x 3, effect 1.105x", 101, (void)0);
	SCENARIO("15 tasks x 1, agent sd varying", 102,
		 (s.ntasks = 15, s.k = 1, s.pass_lo = 0.7, s.pass_hi = 0.8,
		  s.sd_agent_spread = 0.5));
	SCENARIO("80 tasks x 2, effect sd 0.15, agent sd varying", 103,
		 (s.ntasks = 80, s.k = 2, s.sd_agent_spread = 0.7,
		  s.sd_effect = 0.15));
	SCENARIO("A/A, 40 tasks x 3", 104,
		 (s.effect = 0, s.sd_effect = 0, s.pass_effect = 0));
	SCENARIO("A/A, 40 tasks x 1, agent sd 0.3", 105,
		 (s.k = 1, s.effect = 0, s.sd_effect = 0, s.pass_effect = 0,
		  s.sd_agent = 0.3));
	SCENARIO("A/A, 40 tasks x 1, agent sd 0.3, another seed", 205,
		 (s.k = 1, s.effect = 0, s.sd_effect = 0, s.pass_effect = 0,
		  s.sd_agent = 0.3));
	SCENARIO("A/A, 12 tasks x 1, all correct", 206,
		 (s.ntasks = 12, s.k = 1, s.effect = 0, s.sd_effect = 0,
		  s.pass_lo = s.pass_hi = 1, s.pass_effect = 0,
		  s.sd_agent = 0.3));
	SCENARIO("A/A, 120 tasks x 3, agent sd varying (log-sd 1), floor 0",
		 108, (s.ntasks = 120, s.effect = 0, s.sd_effect = 0,
		       s.pass_effect = 0, s.sd_agent_spread = 1.0,
		       s.noise_floor = 0));
	SCENARIO("FDR, 3 attempts: 60% null, 40% at 1.8x", 106,
		 (s.effect = 0.6, s.sd_effect = 0.1, s.null_share = 0.6,
		  s.sd_agent = 0.15, s.sd_agent_spread = 0.5, s.pass_lo = 0.9,
		  s.pass_hi = 1, s.pass_effect = 0));
	SCENARIO("FDR, 1 attempt: 90% null, 10% at 4.5x", 107,
		 (s.k = 1, s.effect = 1.5, s.sd_effect = 0.1,
		  s.null_share = 0.9, s.sd_agent = 0.15, s.pass_lo = 0.9,
		  s.pass_hi = 1, s.pass_effect = 0));
#undef SCENARIO
	return 0;
}
