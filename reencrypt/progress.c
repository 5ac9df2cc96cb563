// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The progress bar: percent, MB/s and ETA on one line of stderr, redrawn
 * at most five times a second. "auto" shows it only on a terminal, so
 * scripts stay quiet.
 */
#include "config.h"

#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "reencrypt.h"

static struct {
	int on;
	uint64_t total, start_done;
	double start, last;
} pb;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

void progress_start(enum progress_mode mode, uint64_t total, uint64_t done)
{
	pb.on = mode == PROGRESS_ALWAYS || (mode == PROGRESS_AUTO && isatty(STDERR_FILENO));
	pb.total = total;
	pb.start_done = done;
	pb.start = now();
	pb.last = 0;
}

static void draw(uint64_t done)
{
	double t = now() - pb.start, rate = t > 0 ? (double)(done - pb.start_done) / t : 0;
	double pct = pb.total ? 100.0 * (double)done / (double)pb.total : 100.0;
	int width = 30, fill = (int)(pct * width / 100), i;
	char bar[32];

	for (i = 0; i < width; i++)
		bar[i] = i < fill ? '#' : '-';
	bar[width] = '\0';
	fprintf(stderr, "\r[%s] %5.1f%%  %8.1f MB/s  ", bar, pct, rate / 1e6);
	if (rate > 0 && done < pb.total) {
		unsigned long eta = (unsigned long)((double)(pb.total - done) / rate);

		fprintf(stderr, "ETA %lu:%02lu:%02lu", eta / 3600, eta / 60 % 60, eta % 60);
	} else {
		fprintf(stderr, "ETA  -:--:--");
	}
	fflush(stderr);
}

void progress_update(uint64_t done)
{
	double t;

	if (!pb.on)
		return;
	t = now();
	if (t - pb.last < 0.2 && done < pb.total)
		return;
	pb.last = t;
	draw(done);
}

void progress_end(void)
{
	if (pb.on)
		fputc('\n', stderr);
	pb.on = 0;
}
