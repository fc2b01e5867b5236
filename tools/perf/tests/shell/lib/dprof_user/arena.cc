// SPDX-License-Identifier: GPL-2.0
/*
 * perf dprof test program: a C++ arena, objects made with placement new in
 * a buffer allocated once.
 *
 *   arena N SECS   N Widgets placed in a 64 KiB arena (new char[]),
 *                  touched at random for SECS; prints "widgets N"
 */
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <new>

struct Widget {
	long	id;
	long	clicks;
	double	scale;
	Widget	*parent;

	explicit Widget(long i) : id(i), clicks(0), scale(1.0), parent(nullptr) {}
};

class Arena {
public:
	explicit Arena(size_t size) : buf(new char[size]), used(0), size(size) {}

	void *get(size_t n)
	{
		void *p = buf + used;

		if (used + n > size)
			std::abort();
		used += n;
		return p;
	}

private:
	char	*buf;
	size_t	used, size;
};

static void click(Widget *w, long v)
{
	for (int i = 0; i < 16; i++) {
		w->clicks += v;
		asm volatile("" : : : "memory");	/* a load and a store each */
	}
}

static void touch(Widget **w, int nr, double secs)
{
	auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(secs);
	unsigned long x = 1;

	do {
		for (int i = 0; i < 100000; i++) {
			x = x * 6364136223846793005UL + 1442695040888963407UL;
			click(w[(x >> 33) % nr], x & 7);
		}
	} while (std::chrono::steady_clock::now() < end);
}

int main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	int nr = atoi(argv[1]);
	if (nr < 1 || nr * sizeof(Widget) > 65536)
		return 2;
	Arena *arena = new Arena(65536);
	Widget **w = new Widget *[nr];

	for (int i = 0; i < nr; i++)
		w[i] = new (arena->get(sizeof(Widget))) Widget(i);
	touch(w, nr, atof(argv[2]));
	printf("widgets %d\n", nr);
	return 0;
}
