# perf dprof: build perf (and the guest kernel) on an overlay of a 6.12 tree.
#
#   make [perf]        build/perf/perf
#   make kernel        build/kernel/arch/x86/boot/bzImage and vmlinux
#   make run           profile a guest kernel with perf dprof (the demo)
#   make check         build, then run 'perf test dprof'; last line: N passed, N failed
#   make vm CMD='...'  run CMD in a guest booted from the kernel we build
#   make series        $(BUILD_DIR)/series/N-name/: the five git format-patch
#                      series for upstream (scripts/series/*.list)
#   make series-check  apply and build each series alone, perf test against
#                      the stock tree (long, not in make check)
#   make doc           $(BUILD_DIR)/man/man1/perf-dprof.1 (asciidoc, xmlto)
#   make fuzz          damaged perf.data through perf dprof report under
#                      ASan + UBSan (FUZZ_N mutants, default 2000; long)
#   make watch-fuzz    fuzz the slab_watch PMU in the KASAN + lockdep guest
#                      (WATCH_FUZZ_SECONDS, default 600; not in make check)
#   make bench         perf dprof's cost on real programs (Lua, CPython,
#                      redis on this host and in the guest) built in
#                      REALPROG_DIR (default /work/realprogs; exit 2 when
#                      absent): time, RSS, file size against perf's own
#                      (REPS, default 3; BENCH: the parts; long, not in
#                      make check)
#   make clean         remove $(BUILD_DIR) (the unpacked source and ccache stay)
#
# Variables: BUILD_DIR, DPROF_CACHE, LINUX_SRC (a kernel tree to use instead
# of Debian's linux-source-6.12).

BUILD_DIR   ?= $(CURDIR)/build
DPROF_CACHE ?= $${XDG_CACHE_HOME:-$$HOME/.cache}/perf-dprof
LINUX_SRC   ?=
CMD         ?= uname -a

ENV = BUILD_DIR="$(BUILD_DIR)" DPROF_CACHE="$(DPROF_CACHE)" \
      $(if $(LINUX_SRC),LINUX_SRC="$(LINUX_SRC)")

all: perf

perf:
	$(ENV) scripts/build-perf.sh

tree:
	$(ENV) scripts/prepare-tree.sh

kernel: tree
	$(ENV) scripts/build-kernel.sh

run:
	$(ENV) scripts/run-demo.sh

check:
	$(ENV) scripts/check.sh

vm: perf kernel
	$(ENV) scripts/run-in-vm.sh "$(BUILD_DIR)/kernel/arch/x86/boot/bzImage" '$(subst ','\'',$(CMD))'

series:
	$(ENV) scripts/make-series.sh

series-check:
	$(ENV) scripts/series-check.sh

doc:
	$(ENV) scripts/build-doc.sh

fuzz:
	$(ENV) scripts/fuzz.sh

watch-fuzz: tree
	$(ENV) scripts/watch-fuzz.sh

bench:
	$(ENV) scripts/bench-alloc.sh

clean:
	rm -rf "$(BUILD_DIR)"

.PHONY: all perf tree kernel run check vm series series-check doc fuzz watch-fuzz bench clean
