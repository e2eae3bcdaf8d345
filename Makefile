# SPDX-License-Identifier: GPL-2.0
# Makefile - builds the whole project: the sch_symphony module (Kbuild),
# the BPF objects with their libbpf skeletons, the tc plugin and the
# userspace tools; installs them; runs the demonstration and the tests.
#
#   make                 build everything (KDIR=... to pick kernel headers)
#   make check           install dependencies, build (the simulator too), run
#                        all selftests: the host tier, and the VM tier on
#                        Debian's 6.1, the 6.1 debug kernel (built on first
#                        use), Debian's 6.12 and trixie-backports' 7.3
#                        (fetched on first use)
#   make check-debug     the VM tier on the debug kernel only
#   make check-matrix    the host tier, and the VM tier on every kernel:
#                        6.1, 6.1-debug, 6.12, 6.12-rt, 7.3, 7.3-rt; the
#                        packages installed on a Debian root (made once)
#   make debug-kernel    build the debug kernel (cached; one-off)
#   make modules-NAME    the module for VM kernel NAME (scripts/lib.sh)
#   make sim             build the ns-3 simulator (sim/, Debian's libns3-dev)
#   make demo            install dependencies, build, run the demonstration
#   make bench           install dependencies, build, run the benchmarks
#   make eval            install dependencies, build, run the full evaluation
#                        (eval-symphony, eval-ofan; EVALUATION.md) into
#                        build/results/
#   make eval-sim        the simulator against the testbed, then the papers'
#                        figures at their scale (EVALUATION.md section 4)
#   make eval-workloads  the papers' training workloads in the simulator:
#                        Symphony's Table 2 and Fig. 6, Ofan's Fig. 13 and 14
#                        (about 60 core-hours: see the target)
#   make publish         summaries and plots of build/results/ into results/
#   make deb             the Debian packages, lintian-checked, into build/deb/:
#                        symphony-ofan-dkms, symphony-ofan, symphony-ofan-tools
#   make install         install module, tc plugin and tools (DESTDIR, PREFIX)
#   make uninstall       remove what install put in place
#   make dkms-install    register the module sources with DKMS
#   make clean           remove every build product

KDIR		?= $(shell scripts/lib.sh default_kdir)
KVER		 = $(shell scripts/lib.sh kdir_release $(KDIR))
PREFIX		?= /usr/local
DESTDIR		?=
MULTIARCH	:= $(shell $(CC) -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
TC_LIB_DIR_INSTALL ?= /usr/lib/$(MULTIARCH)/tc
MODULE_DIR	 = /lib/modules/$(KVER)/updates

VERSION		:= $(shell cat VERSION)
DKMS_SRC	 = /usr/src/sch-symphony-$(VERSION)

CLANG		?= clang
BPFTOOL		?= bpftool
BTF_VMLINUX	?= /sys/kernel/btf/vmlinux

BUILD		:= build
WARN_FLAGS	:= -Wall -Wextra -Werror=implicit-function-declaration
CFLAGS		?= -O2 -g
USER_CFLAGS	 = $(CFLAGS) $(WARN_FLAGS) -I$(BUILD) -Iinclude -Iinclude/uapi \
		   -Iuserspace/lib
BPF_CFLAGS	:= -O2 -g -target bpf -mcpu=v3 -D__TARGET_ARCH_x86 $(WARN_FLAGS) \
		   -Wno-unused-parameter -I$(BUILD) -Ibpf -Iinclude -Iinclude/uapi \
		   -idirafter /usr/include/$(MULTIARCH) \
		   -ffile-prefix-map=$(CURDIR)=.
LIBBPF_LIBS	:= $(shell pkg-config --libs libbpf 2>/dev/null || echo -lbpf -lelf -lz)
MNL_LIBS	:= -lmnl

BPF_PROGS	:= ecnstat symphony_jobs symphony symphony_bench ofan ofan_bench
TOOLS		:= ecnstat rocegen symofan ringcoll permsend hostload
TC_PLUGINS	:= q_symphony
BENCH_TOOLS	:= roceblast ofan_bpf_bench symphony_bpf_bench

BPF_OBJS	:= $(patsubst %,$(BUILD)/%.bpf.o,$(BPF_PROGS))
SKELETONS	:= $(patsubst %,$(BUILD)/%.skel.h,$(BPF_PROGS))
TOOL_BINS	:= $(patsubst %,$(BUILD)/%,$(TOOLS))
PLUGIN_SOS	:= $(patsubst %,$(BUILD)/tc/%.so,$(TC_PLUGINS))
BENCH_BINS	:= $(patsubst %,$(BUILD)/%,$(BENCH_TOOLS)) $(BUILD)/tcg_insns.so

.PHONY: all module bpf userspace tools man deb sim sim-mpi deps bpftool check check-debug check-matrix debug-kernel demo bench eval eval-symphony eval-ofan eval-sim eval-workloads publish install uninstall \
	dkms-src dkms-install clean

all: module bpf userspace

module:
	@test -d "$(KDIR)" || { echo "no kernel headers (KDIR='$(KDIR)'): run scripts/install-deps.sh" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

bpf: $(BPF_OBJS) $(SKELETONS)

userspace: tools $(BENCH_BINS) man

# the programs users install (debian/rules builds these, not the benchmarks)
tools: $(TOOL_BINS) $(PLUGIN_SOS)

$(BUILD) $(BUILD)/tc $(BUILD)/lib:
	mkdir -p $@

# userspace/lib: the helpers every tool, the tc plugin, the benchmarks
# and the unit tests share, as one static library (position-independent,
# for the plugin too).
LIB_SRCS	:= $(wildcard userspace/lib/*.c)
LIB_OBJS	:= $(patsubst userspace/lib/%.c,$(BUILD)/lib/%.o,$(LIB_SRCS))
LIBSYMOFAN	:= $(BUILD)/libsymofan.a

$(BUILD)/lib/%.o: userspace/lib/%.c $(wildcard userspace/lib/*.h include/*/*.h include/uapi/linux/*.h) | $(BUILD)/lib
	$(CC) $(USER_CFLAGS) -fPIC -c $< -o $@

$(LIBSYMOFAN): $(LIB_OBJS)
	$(AR) rcs $@ $^

$(BUILD)/vmlinux.h: | $(BUILD)
	$(BPFTOOL) btf dump file $(BTF_VMLINUX) format c > $@.tmp
	mv $@.tmp $@

$(BUILD)/%.bpf.o: bpf/%.bpf.c $(wildcard bpf/*.h include/*/*.h) $(BUILD)/vmlinux.h | $(BUILD)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@

# The benchmarks' programs include the whole program they measure.
$(BUILD)/ofan_bench.bpf.o: bpf/ofan.bpf.c
$(BUILD)/symphony_bench.bpf.o: bpf/symphony.bpf.c

$(BUILD)/%.skel.h: $(BUILD)/%.bpf.o
	$(BPFTOOL) gen skeleton $< name $(notdir $*)_bpf > $@.tmp
	mv $@.tmp $@

# Every program: its own sources first, then the headers and the library
# every one of them may use; extra libraries in LDLIBS.
ALL_HDRS	:= $(wildcard include/*/*.h include/uapi/linux/*.h userspace/*.h \
		     userspace/lib/*.h userspace/workload/*.h \
		     userspace/workload/*/*.h)
PROGRAMS	:= $(TOOL_BINS) $(BUILD)/roceblast $(BUILD)/ofan_bpf_bench \
		   $(BUILD)/symphony_bpf_bench

$(BUILD)/ecnstat: userspace/ecnstat.c $(BUILD)/ecnstat.skel.h
$(BUILD)/ecnstat: LDLIBS = $(LIBBPF_LIBS) $(JSONC_LIBS)

# the agent: userspace/symofan/, a file per layer and command group
SYMOFAN_SRCS	:= $(wildcard userspace/symofan/*.c)
$(BUILD)/symofan: $(SYMOFAN_SRCS) $(wildcard userspace/symofan/*.h) \
		  $(BUILD)/ofan.skel.h $(BUILD)/symphony_jobs.skel.h $(BUILD)/symphony.skel.h
$(BUILD)/symofan: LDLIBS = $(LIBBPF_LIBS) $(MNL_LIBS) $(JSONC_LIBS)

# the workload tools: ringcoll's parts in a folder of their own; results
# as JSON through json-c
JSONC_LIBS	:= $(shell pkg-config --libs json-c 2>/dev/null || echo -ljson-c)
$(BUILD)/rocegen: userspace/workload/rocegen.c
$(BUILD)/ringcoll: $(wildcard userspace/workload/ringcoll/*.c)
$(BUILD)/ringcoll: LDLIBS = $(JSONC_LIBS)
$(BUILD)/permsend: userspace/workload/permsend.c
$(BUILD)/permsend: LDLIBS = $(JSONC_LIBS) -lm -lpthread
$(BUILD)/hostload: userspace/workload/hostload.c
$(BUILD)/hostload: LDLIBS = $(JSONC_LIBS) -lpthread
$(BUILD)/roceblast: bench/roceblast.c
$(BUILD)/ofan_bpf_bench: bench/ofan_bpf_bench.c bench/bpf_bench.c bench/bpf_bench.h \
			 $(BUILD)/ofan_bench.skel.h
$(BUILD)/ofan_bpf_bench: LDLIBS = $(LIBBPF_LIBS) $(JSONC_LIBS)
$(BUILD)/symphony_bpf_bench: bench/symphony_bpf_bench.c bench/bpf_bench.c bench/bpf_bench.h \
			     $(BUILD)/symphony_bench.skel.h
$(BUILD)/symphony_bpf_bench: LDLIBS = $(LIBBPF_LIBS) $(JSONC_LIBS)

$(PROGRAMS): $(ALL_HDRS) $(LIBSYMOFAN) | $(BUILD)
	$(CC) $(USER_CFLAGS) $(LDFLAGS) $(filter %.c,$^) -o $@ $(LIBSYMOFAN) $(LDLIBS)

$(BUILD)/tcg_insns.so: bench/tcg_insns.c bench/qemu_plugin_v1.h | $(BUILD)
	$(CC) $(USER_CFLAGS) -shared -fPIC $< -o $@ -lpthread

$(BUILD)/tc/%.so: userspace/%.c $(ALL_HDRS) $(LIBSYMOFAN) | $(BUILD)/tc
	$(CC) $(USER_CFLAGS) $(LDFLAGS) -Wno-unused-parameter -shared -fPIC $< -o $@ $(LIBSYMOFAN) $(LIBBPF_LIBS)

# The manual pages: tc-symphony(8) from its template with the parameter
# and statistics tables filled in (man/tc_symphony_man.c), symofan(8) from
# the agent's own --help
# (man/symofan_man.py), ofan.conf(5) from Markdown (go-md2man).  Version and date from
# VERSION and the top entry of debian/changelog, so two builds of one
# release give the same bytes.
MAN_PAGES	:= $(BUILD)/man/tc-symphony.8 $(BUILD)/man/symofan.8 \
		   $(BUILD)/man/ofan.conf.5
MAN_EPOCH	:= $(shell dpkg-parsechangelog -l debian/changelog -STimestamp 2>/dev/null || echo 0)
MAN_DATE	:= $(shell LC_ALL=C date -u -d @$(MAN_EPOCH) '+%B %Y')
MAN_SUBST	 = sed -e 's/@VERSION@/$(VERSION)/g' -e 's/@DATE@/$(MAN_DATE)/g'

# The other programs' pages from their own --help (help2man), as Debian
# does for programs without one: NAME's line is here.
MAN_TOOLS	:= ecnstat rocegen ringcoll permsend hostload
MAN_SCRIPTS	:= leafspine fattree ringrun permrun
MAN_TOOL_PAGES	:= $(patsubst %,$(BUILD)/man/%.8,$(MAN_TOOLS) \
		     $(patsubst %,symofan-%,$(MAN_SCRIPTS)))
whatis_ecnstat		:= count ECN codepoints, RoCEv2 CNPs and UEC packets on a device (tc-BPF)
whatis_rocegen		:= send RoCEv2 or UEC packets of collective jobs, field by field
whatis_ringcoll		:= run this host's ranks of ring collectives over RoCEv2 with DCQCN senders
whatis_permsend		:= run this host's part of a permutation or all-to-all at a fixed load
whatis_hostload		:= sample a host's CPU busy time and timer interrupts into JSON
whatis_leafspine := build a leaf-spine fabric of network namespaces with HTB, netem and a leaf qdisc
whatis_fattree := build a k-ary fat tree of network namespaces, with Ofan or ECMP at the switches
whatis_ringrun := run ring collectives over a namespace fabric and merge the ranks' results
whatis_permrun := run a permutation over a namespace fabric and judge it against its bound
HELP2MAN	 = SOURCE_DATE_EPOCH=$(MAN_EPOCH) \
		   help2man --no-info --no-discard-stderr --version-string=$(VERSION) \
		   --section=8 --name="$(whatis_$*)"

man: $(MAN_PAGES) $(MAN_TOOL_PAGES)

$(BUILD)/man/%.8: $(BUILD)/% VERSION debian/changelog | $(BUILD)/man
	$(HELP2MAN) --output=$@ $<

# a script's page under the name it is installed as (symofan-NAME)
$(BUILD)/man/symofan-%.8: tc-scripts/%.sh VERSION debian/changelog | $(BUILD)/man
	mkdir -p $(BUILD)/man/bin
	ln -sf ../../../$< $(BUILD)/man/bin/symofan-$*
	$(HELP2MAN) --output=$@ $(BUILD)/man/bin/symofan-$*

$(BUILD)/man:
	mkdir -p $@

$(BUILD)/tc_symphony_man: man/tc_symphony_man.c $(ALL_HDRS) $(LIBSYMOFAN) | $(BUILD)
	$(CC) $(USER_CFLAGS) $< -o $@ $(LIBSYMOFAN)

$(BUILD)/man/tc-symphony.8: man/tc-symphony.8.in $(BUILD)/tc_symphony_man VERSION debian/changelog | $(BUILD)/man
	$(BUILD)/tc_symphony_man $< | $(MAN_SUBST) > $@.tmp
	mv $@.tmp $@

$(BUILD)/man/symofan.8: man/symofan.8.in man/symofan_man.py $(BUILD)/symofan VERSION debian/changelog | $(BUILD)/man
	man/symofan_man.py $< $(BUILD)/symofan | $(MAN_SUBST) > $@.tmp
	mv $@.tmp $@

# the Markdown page (GitHub renders it) as go-md2man reads one: a title
# line first, the HTML comments out, each heading one level up
$(BUILD)/man/ofan.conf.5: userspace/ofan.conf.5.md VERSION debian/changelog | $(BUILD)/man
	{ echo '% OFAN.CONF 5 "$(MAN_DATE)" "symphony-ofan $(VERSION)" "File Formats Manual"'; \
	  sed -e '/^<!--/,/-->$$/d' -e '/^# OFAN.CONF(5)/d' -e 's/^#\(#*\) /\1 /' $<; } > $@.md
	go-md2man -in $@.md -out $@.tmp
	rm -f $@.md
	mv $@.tmp $@

# The simulator (sim/): C++17 models on Debian's ns-3 libraries, found by
# pkg-config.  Their .pc files' Cflags name "-I/usr;" and a Python
# include folder; the headers are in /usr/include/ns3, so only the
# libraries are taken from them.
NS3_MODULES	:= ns3-core ns3-network ns3-internet ns3-point-to-point \
		   ns3-traffic-control
SIM_CXXFLAGS	 = -std=c++17 $(CFLAGS) -Wall -Wextra \
		   -Wno-missing-field-initializers -Iinclude -Iinclude/uapi \
		   -Iuserspace/lib -Isim
SIM_SRCS	:= $(wildcard sim/*.cc sim/model/*.cc)
SIM_OBJS	:= $(patsubst sim/%.cc,$(BUILD)/sim/%.o,$(SIM_SRCS))
SIM_BIN		:= $(BUILD)/symofan-sim
# of the shared library, the number and tc-option readers
SIM_LIB_OBJS	:= $(BUILD)/lib/parse.o $(BUILD)/lib/symphony_param.o

sim: $(SIM_BIN)

$(BUILD)/sim/%.o: sim/%.cc $(wildcard sim/model/*.h) $(ALL_HDRS)
	@pkg-config --exists $(NS3_MODULES) || { echo "no ns-3 libraries (libns3-dev): run scripts/install-deps.sh" >&2; exit 1; }
	@mkdir -p $(dir $@)
	$(CXX) $(SIM_CXXFLAGS) -c $< -o $@

# gperftools' tcmalloc where installed: ns-3 allocates a packet, its tags
# and an event per hop, and glibc's malloc was a seventh of a large run's
# time (1,024 hosts: 214 k events/s against 193 k, the same events)
SIM_MALLOC	:= $(shell pkg-config --libs libtcmalloc_minimal 2>/dev/null)

$(SIM_BIN): $(SIM_OBJS) $(SIM_LIB_OBJS)
	$(CXX) $(SIM_CXXFLAGS) $(SIM_OBJS) $(SIM_LIB_OBJS) -o $@ \
		$(shell pkg-config --libs $(NS3_MODULES) 2>/dev/null) $(SIM_MALLOC)

# The same simulator over ns-3's distributed engine (partition.h), against
# the ns-3 with MPI that scripts/build-ns3-mpi.sh caches: run it with
# mpirun (docs/sim.md).  Objects of its own, compiled with SYMOFAN_MPI.
NS3_MPI_DIR	 = $(shell . scripts/lib.sh && ns3_mpi_dir)
NS3_MPI_LIBS	:= -lns3-core -lns3-network -lns3-bridge -lns3-stats -lns3-traffic-control \
		   -lns3-internet -lns3-point-to-point -lns3-mpi
SIM_MPI_OBJS	:= $(patsubst sim/%.cc,$(BUILD)/sim-mpi/%.o,$(SIM_SRCS))
SIM_MPI_BIN	:= $(BUILD)/symofan-sim-mpi

sim-mpi: $(SIM_MPI_BIN)

$(BUILD)/sim-mpi/%.o: sim/%.cc $(wildcard sim/model/*.h) $(ALL_HDRS)
	@[ -f "$(NS3_MPI_DIR)/.complete" ] || { echo "no ns-3 with MPI: run scripts/build-ns3-mpi.sh" >&2; exit 1; }
	@mkdir -p $(dir $@)
	mpicxx $(SIM_CXXFLAGS) -DSYMOFAN_MPI -DNS3_MPI -DOMPI_SKIP_MPICXX -isystem $(NS3_MPI_DIR)/include -c $< -o $@

$(SIM_MPI_BIN): $(SIM_MPI_OBJS) $(SIM_LIB_OBJS)
	mpicxx $(SIM_CXXFLAGS) $(SIM_MPI_OBJS) $(SIM_LIB_OBJS) -o $@ \
		-L$(NS3_MPI_DIR)/lib $(NS3_MPI_LIBS) -Wl,-rpath,$$(readlink -f $(NS3_MPI_DIR)/lib) \
		$(SIM_MALLOC)

deps:
	scripts/install-deps.sh

# The VM tier's kernels (scripts/lib.sh vm_kernel) for each check target;
# NAME:quick leaves out the long workload tests (selftests/settings), whose
# kernel paths the other tests cover, to keep 'make check' within CI's
# time on a fresh machine (docs/testing.md).
CHECK_KERNELS		?= 6.1 6.1-debug:quick 6.12:quick 7.3:quick
CHECK_MATRIX_KERNELS	:= 6.1 6.1-debug 6.12 6.12-rt 7.3 7.3-rt
kernel_names		 = $(foreach k,$(1),$(firstword $(subst :, ,$(k))))

check: deps
	$(MAKE) all sim
	$(MAKE) $(patsubst %,modules-%,$(call kernel_names,$(CHECK_KERNELS)))
	$(MAKE) bpftool
	$(MAKE) -C selftests run_tests KERNELS="$(CHECK_KERNELS)"

check-debug: deps
	$(MAKE) all
	$(MAKE) modules-6.1-debug
	$(MAKE) -C selftests run_tests TIER=vm KERNELS=6.1-debug

check-matrix: deps
	$(MAKE) all sim
	$(MAKE) $(patsubst %,modules-%,$(CHECK_MATRIX_KERNELS))
	$(MAKE) bpftool
	scripts/make-debian-root.sh
	SYMOFAN_CHECK_MATRIX=1 $(MAKE) -C selftests run_tests KERNELS="$(CHECK_MATRIX_KERNELS)"

debug-kernel:
	scripts/build-debug-kernel.sh

# A bpftool that knows tcx (Debian 12's predates it), built once from the
# cached linux-source-7.x for the tests (scripts/build-bpftool.sh)
bpftool:
	scripts/build-bpftool.sh

# The Debian packages (debian/), lintian-checked, into build/deb/
deb: deps
	scripts/build-deb.sh

# The module and the test modules for each VM kernel: the stock 6.1's in
# place (make module, make -C selftests kmod), the others' under
# build/kmod/NAME; the debug kernel is built first if it is not cached.
modules-6.1: module

modules-6.1-debug: debug-kernel
	scripts/build-module.sh 6.1-debug

# trixie-backports' kernels: the image and a prepared linux-source tree
# are fetched on first use (cached), then the module is built against it
modules-7.3 modules-7.3-rt: modules-%:
	scripts/fetch-backports-kernel.sh $*
	scripts/build-module.sh $*

modules-%:
	scripts/build-module.sh $*

demo: deps
	$(MAKE) all sim
	scripts/demo.sh

# Benchmarks and the evaluation write everything under build/results/;
# 'make publish' copies their summaries and plots into results/, the
# tracked folder EVALUATION.md cites (eval/publish.py).
RESULTS		:= $(BUILD)/results

bench: deps
	$(MAKE) all
	mkdir -p $(RESULTS)
	$(BUILD)/ofan_bpf_bench --out $(RESULTS)/ofan_bpf.json
	$(BUILD)/symphony_bpf_bench --out $(RESULTS)/symphony_bpf.json
	bench/qdisc_pps.sh
	eval/cost.sh

eval: eval-symphony eval-ofan

publish:
	eval/publish.py --all

# Symphony: ring AllReduces on a leaf-spine in the VM, RED vs Symphony;
# then the controls that show where the baseline's time goes (the
# headline "ecmp" control is the rings scenario just run), the paper's Fig. 9
# natively and in the VM, and the fluid
# model of ECMP's hash collisions.
eval-symphony: deps
	$(MAKE) all
	mkdir -p $(RESULTS)/symphony_controls
	eval/symphony_ring.sh
	eval/symphony_controls.sh --controls "ecmp_quiet ecmp_quiet_nored static_quiet static_imb static_bg static_imb_steps static_imb_steps_nored"
	jq -c '.runs |= map(select(.scenario == "rings"))' $(RESULTS)/symphony_ring.json \
		>$(RESULTS)/symphony_controls/ecmp.json
	eval/symphony_ring.sh --replot --out $(RESULTS)/symphony_controls/ecmp.json
	eval/symphony_controls.sh --summary
	eval/symphony_fig9.sh --engine host
	eval/symphony_fig9.sh --engine vm
	eval/ecmp_collision_model.py --out $(RESULTS)/ecmp_collision_model.json

# The papers' training workloads in the simulator (EVALUATION.md section
# 4, "Training workloads"): Symphony's Table 2 (128 and 512 nodes) and
# Fig. 6, Ofan's Fig. 13 (MoE) and Fig. 14 (Llama-3 8B, 70B, 405B under
# NSCC and MSwift).  What each line costs, in hours of a core (measured
# on this project's 2-core machine, one run's cost times the runs; the
# 512-node line estimated): Table 2 at 128 nodes 5 (VGG16 3.6 of them),
# at 512 nodes about 5, Fig. 6 2.3, Fig. 13 2.2, Fig. 14 8B 3.5, 70B
# about 10, 405B about 33: some 60 core-hours, 30 hours on two cores.
# Each script takes --resume FILE to add seeds to an earlier run.
eval-workloads: deps
	$(MAKE) sim
	mkdir -p $(RESULTS)
	eval/sim_workloads.sh --figure table2 --nodes 128 --seeds 5 --scale 1 \
		--out $(RESULTS)/sim_workloads_table2_128.json
	eval/sim_workloads.sh --figure table2 --models "vgg16 resnet50" --nodes 512 --seeds 5 --scale 4 \
		--out $(RESULTS)/sim_workloads_table2_512.json
	eval/sim_workloads.sh --figure fig6 --seeds 5 --scale 1 --out $(RESULTS)/sim_workloads_fig6.json
	eval/sim_ofan_moe.sh --seeds 5 --out $(RESULTS)/sim_ofan_moe.json
	for m in 8b 70b 405b; do \
		eval/sim_ofan_cca.sh --workload llama3-$$m --phases 8 --ccas "nscc mswift" \
			--modes "ofan 4ofan ar reps ecmp" --seeds 5 \
			--out $(RESULTS)/sim_ofan_fsdp_llama3-$$m.json || exit 1; \
	done

# The simulator (EVALUATION.md section 4): checked against the testbed's
# controls, then the papers' figures at their scale.
eval-sim: deps
	$(MAKE) sim
	mkdir -p $(RESULTS)
	eval/sim_validate.sh
	eval/sim_symphony_verdict.sh --stack paper
	eval/sim_symphony_verdict.sh --stack nccl --seeds 10 --long-seeds 5
	eval/sim_symphony_ablation.sh
	eval/sim_symphony_fig9.sh
	eval/sim_symphony.sh --stack legacy --nodes 32 --scenarios "rings jobs2" --iterations 5 \
		--out $(RESULTS)/sim_symphony_32_iter5.json
	eval/sim_symphony.sh --stack legacy --nodes 128 --scenarios rings --out $(RESULTS)/sim_symphony_128.json
	eval/sim_symphony.sh --stack legacy --nodes 32 --scenarios gridrings --out $(RESULTS)/sim_symphony_32_gridrings.json
	eval/sim_symphony.sh --stack legacy --nodes 32 --scenarios twojobs --iterations 2 --job-offset 300 \
		--out $(RESULTS)/sim_symphony_32_twojobs.json
	eval/sim_symphony_sweep.sh --stack legacy --param chunk --values "128k 512k 2m 8m" --nodes 32
	eval/sim_symphony_sweep.sh --stack legacy --param k --chunk 2m --nodes 32
	eval/sim_symphony_sweep.sh --stack legacy --param imbalance --nodes 32
	eval/sim_symphony_arrivals.sh --stack legacy
	eval/sim_ofan.sh --k 8 --out $(RESULTS)/sim_ofan_k8.json
	eval/sim_ofan.sh --k 12 --sizes "64 256 1024" --seeds 2 --out $(RESULTS)/sim_ofan_k12.json
	eval/sim_ofan.sh --k 8 --sizes 256 --seeds 5 --fail-prob "0 0.01 0.02 0.05 0.1" \
		--out $(RESULTS)/sim_ofan_k8_failures.json
	eval/sim_ofan.sh --k 8 --sizes "64 256 1024" --modes "ofan 4ofan drb jsq ar reps rps rr ecmp" \
		--out $(RESULTS)/sim_ofan_k8_fig4.json
	eval/sim_ofan.sh --k 8 --sizes 1024 --modes "ofan ar reps" --load "25 50 75 100" \
		--out $(RESULTS)/sim_ofan_k8_fig1.json
	eval/sim_ofan.sh --k 12 --sizes 1024 --seeds 2 --modes "4ofan ar 4ofan+ar@edge 4ofan+ar@agg \
		4ofan+ar@pods 4ofan+ar@switches" --out $(RESULTS)/sim_ofan_k12_fig11.json
	eval/sim_ofan.sh --k 8 --sizes 256 --modes "ofan ar reps ecmp" --fail-prob "0 0.01 0.05" \
		--out $(RESULTS)/sim_ofan_k8_fig9_ar_reps.json
	for k in 4 8 12; do eval/sim_ofan.sh --k $$k --sizes 256 --seeds $$([ $$k = 12 ] && echo 2 || echo 3) \
		--modes "ofan ar reps rps ecmp" --out $(RESULTS)/sim_ofan_fig5_k$$k.json || exit 1; done
	eval/sim_ofan.sh --two-level --k 64 --sizes 64 --seeds 1 --modes "ofan ar reps rps ecmp" \
		--out $(RESULTS)/sim_ofan_2level_k64.json
	eval/sim_ofan.sh --paper-ofan --k "4 8 12 16" --sizes 256 --modes "ofan 1ofan 2ofan 4ofan drb" \
		--seeds 3 --out $(RESULTS)/sim_ofan_fig6.json
	eval/sim_ofan.sh --paper-ofan --k 8 --sizes "512k 4096k" --payloads "1024 2048 4096 8192 16384 32768" \
		--modes "ofan ar reps" --seeds 2 --out $(RESULTS)/sim_ofan_fig8_k8.json
	eval/sim_ofan.sh --paper-ofan --pattern all-to-all --k "4 8" --sizes 4 \
		--modes "ofan ar reps rps ecmp" --seeds 2 --out $(RESULTS)/sim_ofan_fig5b.json
	eval/sim_ofan.sh --paper-ofan --pattern all-to-all --k 8 --sizes "1 4 16" \
		--modes "ofan ar reps rps ecmp" --seeds 2 --out $(RESULTS)/sim_ofan_fig7b_k8.json
	eval/sim_ofan_cca.sh --k 8 --seeds 5 --out $(RESULTS)/sim_ofan_cca_k8.json
	eval/sim_ofan_cca.sh --k 8 --seeds 3 --ccas "nscc mswift" --modes "ofan ar reps" \
		--dupack-threshold 100000 --out $(RESULTS)/sim_ofan_cca_k8_nodup.json
	eval/sim_ofan_cca.sh --k 8 --seeds 5 --ccas "nscc mswift" --modes "ofan ar reps" \
		--cwnd-init-pct 150 --out $(RESULTS)/sim_ofan_cca_k8_init150.json
	eval/sim_ofan_cca.sh --k 12 --seeds 10 --ccas "nscc mswift" --modes "ofan ar reps" \
		--out $(RESULTS)/sim_ofan_cca_k12.json

# Ofan: permutations on a k=4 fat tree, every load-balancing mode, message
# sizes and seeds; then at 45% load with 0, 1 and 2 failed links.
eval-ofan: deps
	$(MAKE) all
	mkdir -p $(RESULTS)
	eval/ofan_permutation.sh
	for f in 0 1 2; do \
		eval/ofan_permutation.sh --load 45 --fail $$f \
			--out $(RESULTS)/ofan_permutation_load45_fail$$f.json || exit 1; \
	done

install: all
	install -D -m 0644 kernel/sch_symphony.ko $(DESTDIR)$(MODULE_DIR)/sch_symphony.ko
	depmod -b "$(or $(DESTDIR),/)" $(KVER)
	install -D -m 0644 $(BUILD)/tc/q_symphony.so $(DESTDIR)$(TC_LIB_DIR_INSTALL)/q_symphony.so
	install -D -m 0755 $(TOOL_BINS) -t $(DESTDIR)$(PREFIX)/sbin
	install -D -m 0644 contrib/systemd/*.service userspace/*.md README.md docs/*.md \
		-t $(DESTDIR)$(PREFIX)/share/doc/symofan
	install -D -m 0644 $(BUILD)/man/tc-symphony.8 $(BUILD)/man/symofan.8 \
		-t $(DESTDIR)$(PREFIX)/share/man/man8
	install -D -m 0644 $(BUILD)/man/ofan.conf.5 -t $(DESTDIR)$(PREFIX)/share/man/man5

uninstall:
	rm -f $(DESTDIR)$(MODULE_DIR)/sch_symphony.ko
	[ -n "$(DESTDIR)" ] || depmod -a $(KVER)
	[ -z "$(DESTDIR)" ] || rm -f $(DESTDIR)/lib/modules/$(KVER)/modules.*
	rm -f $(DESTDIR)$(TC_LIB_DIR_INSTALL)/q_symphony.so
	rm -f $(patsubst %,$(DESTDIR)$(PREFIX)/sbin/%,$(TOOLS))
	rm -rf $(DESTDIR)$(PREFIX)/share/doc/symofan
	rm -f $(DESTDIR)$(PREFIX)/share/man/man8/tc-symphony.8 \
		$(DESTDIR)$(PREFIX)/share/man/man8/symofan.8 \
		$(DESTDIR)$(PREFIX)/share/man/man5/ofan.conf.5

# The module's sources, as DKMS wants them (DESTDIR honoured).
dkms-src:
	install -D -m 0644 Kbuild $(DESTDIR)$(DKMS_SRC)/Kbuild
	install -D -m 0644 kernel/Kbuild $(filter-out %.mod.c,$(wildcard kernel/*.c kernel/*.h)) -t $(DESTDIR)$(DKMS_SRC)/kernel
	cp -r include $(DESTDIR)$(DKMS_SRC)/
	sed 's/#MODULE_VERSION#/$(VERSION)/' dkms.conf > $(DESTDIR)$(DKMS_SRC)/dkms.conf

dkms-install: dkms-src
	dkms add -m sch-symphony -v $(VERSION)
	dkms install -m sch-symphony -v $(VERSION)

clean:
	[ ! -d "$(KDIR)" ] || $(MAKE) -C $(KDIR) M=$(CURDIR) clean
	$(MAKE) -C selftests clean
	rm -rf $(BUILD)
