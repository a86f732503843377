/* bench/calibrate_continuous_gen.c — a reproducible JSONL corpus of continuous confidences (a model's probabilities).
 *
 * Usage: calibrate_continuous_gen ROWS SEED > FILE
 * Each line is {"confidence": C, "correct": B, "task": "tN"}: C uniform in [0, 1) with 53 random
 * bits, so practically every value is distinct, printed with the fewest of 15-17 digits that read
 * back exactly (as Python's repr mostly does); P(correct) = 0.2 + 0.6 C. Same ROWS and SEED, same bytes.
 */
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

static double unif(void)
{
	return (double)(splitmix64() >> 11) * (1.0 / 9007199254740992.0);
}

int main(int argc, char **argv)
{
	unsigned long rows;
	char buf[32];

	if (argc != 3) {
		fputs("usage: calibrate_continuous_gen ROWS SEED\n", stderr);
		return 2;
	}
	rows = strtoul(argv[1], NULL, 10);
	state = strtoull(argv[2], NULL, 10);
	for (unsigned long i = 0; i < rows; i++) {
		double c = unif();
		int correct = unif() < 0.2 + 0.6 * c;
		for (int digits = 15; digits <= 17; digits++) {
			snprintf(buf, sizeof(buf), "%.*g", digits, c);
			if (strtod(buf, NULL) == c)
				break;
		}
		printf("{\"confidence\": %s, \"correct\": %s, \"task\": \"t%lu\"}\n", buf, correct ? "true" : "false", i % 1000);
	}
	return 0;
}
