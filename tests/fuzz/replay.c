/* tests/fuzz/replay.c — a main() for a harness without libFuzzer: runs it once on each file (or folder) named. */
#include "config.h"
#include "fuzz.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The whole of path, malloc'd (size 0 allowed); NULL with errno set when it cannot be read. */
static uint8_t *replay_read(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	uint8_t *data = NULL;
	size_t n = 0, cap = 0;

	if (!f)
		return NULL;
	for (;;) {
		if (n == cap) {
			uint8_t *grown = realloc(data, (cap = cap ? cap * 2 : 4096));
			if (!grown)
				break;
			data = grown;
		}
		size_t got = fread(data + n, 1, cap - n, f);
		n += got;
		if (got == 0)
			break;
	}
	if (ferror(f) || !data) {
		int saved = ferror(f) ? EIO : ENOMEM;
		fclose(f);
		free(data);
		errno = saved;
		return NULL;
	}
	fclose(f);
	*size = n;
	return data;
}

static int replay_file(const char *path)
{
	size_t size;
	uint8_t *data = replay_read(path, &size);

	if (!data) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	LLVMFuzzerTestOneInput(data, size);
	free(data);
	return 1;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

/* Each regular file of dir, in name order, skipping dot files (.keep holds an empty folder in git). */
static int replay_dir(const char *dir)
{
	struct dirent **names;
	int n = scandir(dir, &names, NULL, by_name), done = 0;

	if (n < 0) {
		fprintf(stderr, "replay: %s: %s\n", dir, strerror(errno));
		return -1;
	}
	for (int i = 0; i < n; i++) {
		char path[4096];
		struct stat st;
		if (names[i]->d_name[0] != '.' &&
		    snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name) < (int)sizeof(path) &&
		    stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
			if (replay_file(path) < 0)
				done = -1;
			else if (done >= 0)
				done++;
		}
		free(names[i]);
	}
	free(names);
	return done;
}

int main(int argc, char **argv)
{
	int total = 0;

	for (int i = 1; i < argc; i++) {
		struct stat st;
		int n = stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode) ? replay_dir(argv[i]) : replay_file(argv[i]);
		if (n < 0)
			return 1;
		total += n;
	}
	printf("replay: %d inputs ran clean\n", total);
	return 0;
}
