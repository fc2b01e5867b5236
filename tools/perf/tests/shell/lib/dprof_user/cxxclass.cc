// SPDX-License-Identifier: GPL-2.0
/*
 * perf dprof test program, C++ classes whose members the report names as
 * a struct's: made with new, touched at known members through their own
 * member functions (this typed by DWARF), in a namespace.
 *
 *	store::Block::Iter	a class nested in a class, defined outside it
 *				(DW_AT_specification), with a base class
 *				(store::Iterator: a vtable pointer and data
 *				members) and a struct member (key_.size_)
 *	store::Ring<long, 8>	a template class, with an empty base class at
 *				its first member (head_)
 *	store::detail::Stats	a class in a nested namespace, with a static
 *				data member
 *	store::Table::Rep	two structs of one name, of different sizes
 *	store::Builder::Rep
 *
 *	cxxclass SECONDS	touch them for about SECONDS
 */
#include <cstdlib>
#include <ctime>

namespace store {

class Iterator {
public:
	Iterator() : refs_(0), cleanup_(nullptr) {}
	virtual ~Iterator() {}
	virtual void Seek(unsigned long target) = 0;
	virtual unsigned long Value() const = 0;

protected:
	long refs_;
	void *cleanup_;
};

struct Slice {
	const char *data_;
	unsigned long size_;
};

class Block {
public:
	class Iter;
	explicit Block(const char *data) : data_(data) {}
	Iter *NewIterator(unsigned int restarts);

private:
	const char *data_;
};

class Block::Iter : public Iterator {
public:
	Iter(const char *data, unsigned int restarts)
		: data_(data), restarts_(restarts), current_(0), value_(0)
	{
		key_.data_ = data;
		key_.size_ = 0;
	}
	void Seek(unsigned long target) override;
	unsigned long Value() const override;

private:
	const char *data_;
	unsigned int restarts_;
	unsigned int current_;
	Slice key_;
	unsigned long value_;
	char pad_[64];
};

/* the hot members: restarts_, key_.size_ and the base's refs_ */
void Block::Iter::Seek(unsigned long target)
{
	refs_++;
	key_.size_ = target % restarts_;
	if (key_.size_ == 7)
		current_++;
}

unsigned long Block::Iter::Value() const
{
	return key_.size_ + refs_;
}

Block::Iter *Block::NewIterator(unsigned int restarts)
{
	return new Iter(data_, restarts);
}

/* a base without data, which takes no room (as std::string's allocator) */
struct RingTag {
	static const int version = 1;
};

template <typename T, int N>
class Ring : public RingTag {
public:
	Ring() : head_(0), pushes_(0) {}
	unsigned long Push(T v);

private:
	unsigned int head_;
	long pushes_;
	T slots_[N];
};

/* the hot members: head_ and pushes_ */
template <typename T, int N>
unsigned long Ring<T, N>::Push(T v)
{
	head_ = (head_ + 1) % N;
	pushes_ += v & 1;
	if (v == 42)
		slots_[head_] = v;
	return (v >> 3) * 5 + (v >> 9);
}

namespace detail {

/*
 * live_, a static data member, is not in the object: DWARF 4 declares it
 * among the members, where it would take offset 0 from hits_.
 */
class Stats {
public:
	Stats() : hits_(0), misses_(0) { live_++; }
	unsigned long Count(unsigned long x);

private:
	static long live_;
	long hits_;
	long misses_;
	char name_[48];
};

long Stats::live_;

/*
 * The hot members: hits_ and misses_; work without memory operands after
 * them, where the sampler's skid takes them back to the access.
 */
unsigned long Stats::Count(unsigned long x)
{
	if (x & 4)
		hits_++;
	else
		misses_++;
	return (x >> 3) * 7 + (x >> 11);
}

} /* namespace detail */

/*
 * Two types of one name, "Rep" to the typing (leveldb has a Table::Rep
 * and a TableBuilder::Rep): each row has its own type's members.  The
 * larger is the one a lookup by name alone would take.
 */
class Table {
public:
	struct Rep;
	static Rep *NewRep(void);
	static unsigned long Find(Rep *rep, unsigned long x);
};

struct Table::Rep {
	unsigned long offset_;
	unsigned long entries_;
};

class Builder {
public:
	struct Rep;
	static Rep *NewRep(void);
	static unsigned long Add(Rep *rep, unsigned long x);
};

struct Builder::Rep {
	char buf_[120];
	unsigned long pending_;
};

Table::Rep *Table::NewRep(void)
{
	return new Rep();
}

/* the hot members: entries_ and offset_ */
unsigned long Table::Find(Rep *rep, unsigned long x)
{
	rep->entries_ += x & 1;
	rep->offset_ ^= x;
	return (x >> 5) * 3 + (x >> 12);
}

Builder::Rep *Builder::NewRep(void)
{
	return new Rep();
}

/* the hot member: pending_ */
unsigned long Builder::Add(Rep *rep, unsigned long x)
{
	rep->pending_ += x & 3;
	return (x >> 6) * 5 + (x >> 14);
}

} /* namespace store */

#define NR_OBJECTS	(16 * 1024)

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1;
	static char data[64];
	store::Block block(data);
	store::Block::Iter **iters = new store::Block::Iter *[NR_OBJECTS];
	store::Ring<long, 8> **rings = new store::Ring<long, 8> *[NR_OBJECTS];
	store::detail::Stats **stats = new store::detail::Stats *[NR_OBJECTS];
	store::Table::Rep **treps = new store::Table::Rep *[NR_OBJECTS];
	store::Builder::Rep **breps = new store::Builder::Rep *[NR_OBJECTS];
	struct timespec t0, t;
	unsigned long x = 1, sum = 0;

	for (int i = 0; i < NR_OBJECTS; i++) {
		iters[i] = block.NewIterator(16 + i % 7);
		rings[i] = new store::Ring<long, 8>();
		stats[i] = new store::detail::Stats();
		treps[i] = store::Table::NewRep();
		breps[i] = store::Builder::NewRep();
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (int i = 0; i < 100000; i++) {
			x = x * 6364136223846793005UL + 1442695040888963407UL;
			store::Block::Iter *it = iters[(x >> 33) % NR_OBJECTS];

			it->Seek(x >> 20);
			sum += it->Value();
			sum += rings[(x >> 40) % NR_OBJECTS]->Push(x >> 7);
			sum += stats[(x >> 27) % NR_OBJECTS]->Count(x >> 13);
			sum += store::Table::Find(treps[(x >> 17) % NR_OBJECTS], x >> 3);
			sum += store::Builder::Add(breps[(x >> 23) % NR_OBJECTS], x >> 9);
		}
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (t.tv_sec - t0.tv_sec + (t.tv_nsec - t0.tv_nsec) / 1e9 < secs);
	for (int i = 0; i < NR_OBJECTS; i++) {
		delete iters[i];
		delete rings[i];
		delete stats[i];
		delete treps[i];
		delete breps[i];
	}
	delete[] iters;
	delete[] rings;
	delete[] stats;
	delete[] treps;
	delete[] breps;
	return sum == 42;
}
