// SPDX-License-Identifier: GPL-2.0
/* perf dprof test program: C++ objects made with new, reached by pointers. */
#include <cstdlib>
#include <ctime>

class Account {
public:
	explicit Account(long id) : next_(nullptr), id_(id), balance_(0), ops_(0) {}
	void deposit(long amount)
	{
		balance_ += amount;
		ops_++;
	}
	long balance() const { return balance_; }
	Account *next_;
private:
	long id_;
	long balance_;
	long ops_;
};

#define NR_ACCOUNTS	(32 * 1024)

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1;
	Account **accounts = new Account *[NR_ACCOUNTS];
	struct timespec t0, t;
	unsigned long x = 1;
	long sum = 0;

	for (int i = 0; i < NR_ACCOUNTS; i++)
		accounts[i] = new Account(i);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (int i = 0; i < 100000; i++) {
			x = x * 6364136223846793005UL + 1442695040888963407UL;
			Account *a = accounts[(x >> 33) % NR_ACCOUNTS];

			a->deposit(x & 0xff);
			sum += a->balance();
		}
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (t.tv_sec - t0.tv_sec + (t.tv_nsec - t0.tv_nsec) / 1e9 < secs);
	for (int i = 0; i < NR_ACCOUNTS; i++)
		delete accounts[i];
	delete[] accounts;
	return sum == 42;
}
