/* bench/calibrate_gen.c — writes a reproducible synthetic JSONL corpus for bench/calibrate.sh.
 *
 * Usage: calibrate_gen ROWS SEED > FILE
 * Each line is {"confidence":C,"correct":B,"agent":"aN"}: four agents with different confidence
 * habits, confidences with two decimals (101 distinct values, printed the way Python's json.dumps
 * prints them: 0.0, 0.05, 0.5, 1.0), and labels drawn with a probability that rises with confidence
 * for three agents and not at all for the fourth. Same ROWS and SEED, same bytes.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static uint64_t state;

static uint64_t splitmix64(void)
{
	uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform in [0, 1). */
static double unif(void)
{
	return (double)(splitmix64() >> 11) * (1.0 / 9007199254740992.0);
}

struct agent {
	double mean;   /* centre of its confidences */
	double spread; /* half-width of the (bell-shaped) confidence distribution */
	double base;   /* P(correct) at confidence 0 */
	double slope;  /* P(correct) rises by this much from confidence 0 to 1 */
};

static const struct agent agents[] = {
	{0.50, 0.50, 0.10, 0.80}, /* a0: spread over the whole range, fairly well calibrated */
	{0.75, 0.30, 0.30, 0.50}, /* a1: somewhat informative, overconfident */
	{0.85, 0.20, 0.10, 0.70}, /* a2: confident, informative */
	{0.90, 0.15, 0.65, 0.00}, /* a3: confident, its confidence says nothing */
};

int main(int argc, char **argv)
{
	static char buf[1 << 16];
	unsigned long long rows;

	if (argc != 3) {
		fputs("usage: calibrate_gen ROWS SEED\n", stderr);
		return 2;
	}
	rows = strtoull(argv[1], NULL, 10);
	state = strtoull(argv[2], NULL, 10);
	setvbuf(stdout, buf, _IOFBF, sizeof(buf));
	for (unsigned long long i = 0; i < rows; i++) {
		unsigned a = (unsigned)(splitmix64() % 4);
		const struct agent *g = &agents[a];
		/* A sum of three uniforms: bell-shaped on [mean - spread, mean + spread], clipped to [0, 1]. */
		double c = g->mean + g->spread * ((unif() + unif() + unif()) / 1.5 - 1.0);
		int pct = (int)(c * 100.0 + 0.5);
		char num[8];
		int correct;

		if (pct < 0)
			pct = 0;
		if (pct > 100)
			pct = 100;
		correct = unif() < g->base + g->slope * (pct / 100.0);
		if (pct == 100)
			snprintf(num, sizeof(num), "1.0");
		else if (pct % 10 == 0)
			snprintf(num, sizeof(num), "0.%d", pct / 10);
		else
			snprintf(num, sizeof(num), "0.%02d", pct);
		printf("{\"confidence\":%s,\"correct\":%s,\"agent\":\"a%u\"}\n", num, correct ? "true" : "false", a);
	}
	if (fflush(stdout) != 0 || ferror(stdout)) {
		perror("calibrate_gen: write");
		return 1;
	}
	return 0;
}
