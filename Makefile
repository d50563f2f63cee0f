# lcalab: the one entry point. `make help` lists the targets.
# Every tunable lives in lab/lab.conf; override on the command line,
# e.g. make boot KERNEL=lca SWAP_SIZE=256M CMD='free -m'.

SHELL := bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := all

# lab.conf's values, read in one call (lab/conf --make: spaces as $(sp))
empty :=
sp := $(empty) $(empty)
$(foreach a,$(shell lab/conf --make LAB_BUILD VARIANTS KNOWN_VARIANTS TEST_BUILDS LINUX_SOURCE \
	LINUX_LINES GUEST_CFLAGS),$(eval $(a)))
OTHER_LINES := $(filter-out $(LINUX_SOURCE),$(LINUX_LINES))
# every build: each variant on the default line, and VARIANT@LINE on the others
BUILDS := $(KNOWN_VARIANTS) $(foreach l,$(OTHER_LINES),$(addsuffix @$(l),$(KNOWN_VARIANTS)))
LINE ?= $(LINUX_SOURCE)
export LAB_BUILD

GUEST_SRC := $(wildcard workloads/*.c)
GUEST_BIN := $(patsubst workloads/%.c,$(LAB_BUILD)/guest-bin/%,$(GUEST_SRC))

KERNEL ?= stock
SWAP_SIZE ?= 0
CMD ?= cat /proc/version; free -m

.PHONY: all help deps kernels $(addprefix kernel-,$(BUILDS)) rootfs \
	guest-bin check-series boot smoke run test-stock reference run-defences run-debug stress clock-check overhead merge report events herd compare paper check test lint \
	clean distclean

all: kernels rootfs smoke guest-bin ## build, boot each kernel once, run the default matrix, write its report
	@dir=$$(lab/run) && analysis/report "$$dir"

help: ## list the targets
	@awk -F':.*## ' '/^[a-z%-]+:.*## / { printf "  %-16s %s\n", $$1, $$2 }' $(MAKEFILE_LIST)
	@printf '  %-16s %s\n' "kernel-BUILD" "build one kernel: VARIANT ($(KNOWN_VARIANTS)), or VARIANT@LINE ($(OTHER_LINES))"
	@echo "Configuration: lab/lab.conf (build dir: $(LAB_BUILD))"

deps: ## install missing Debian packages (apt-get)
	@lab/deps

kernels: $(addprefix kernel-,$(VARIANTS)) ## build the kernel variants (VARIANTS in lab.conf)

$(addprefix kernel-,$(BUILDS)): kernel-%: deps
	@lab/build-kernel $*

rootfs: deps ## build the guest root filesystem image (debootstrap)
	@lab/build-rootfs

guest-bin: $(GUEST_BIN) ## compile the guest programs (workloads/*.c, static)

$(LAB_BUILD)/guest-bin/%: workloads/%.c $(wildcard workloads/*.h)
	@mkdir -p $(@D)
	gcc $(GUEST_CFLAGS) -o $@ $<

check-series: kernel-stock$(if $(filter-out $(LINUX_SOURCE),$(LINE)),@$(LINE)) ## each patch of LINE's series: checkpatch --strict clean, applies, builds alone
	@kernel-patch/check-series $(LINE)

boot: kernel-$(KERNEL) rootfs guest-bin ## boot KERNEL with SWAP_SIZE (0 = none), run CMD, show its output
	@lab/boot --show --kernel $(KERNEL) --swap $(SWAP_SIZE) -- '$(CMD)'

smoke: kernels rootfs guest-bin ## boot every kernel variant once and check it came up
	@TEST_BUILDS="$(VARIANTS)" lab/test/run smoke

# The plan is checked before anything is built; DRY_RUN=1 only prints it.
# The runs' recipes call lab/experiment, never $(MAKE): make -n starts nothing.
run: ## run an experiment (EXPERIMENT [matrix]; KERNELS SWAP WORKLOADS DEFENCES DESKTOPS REPS CELLS_WHERE; RUN_ID names it) into results/
	@lab/experiment

# the newest run by its creation (meta.json), not by file times, which a
# checkout or a copy resets
RUN ?= $(shell jq -r '"\(.created) \(input_filename)"' results/*/meta.json 2>/dev/null | sort | tail -1 | \
	cut -d' ' -f2 | xargs -r dirname)
reference: ## the reference run the paper is made from, 345 cells, ~13-16 h (lab/experiments/reference.conf); rerun to resume
	@EXPERIMENT=reference lab/experiment

run-defences: ## the defences experiment, 1,260 cells: stock, lca-2005, lca x six defences in their desktops (lab/experiments/defences.conf); rerun to resume
	@EXPERIMENT=defences lab/experiment

run-debug: ## every workload and policy mode on lca-debug, swap off and on (lab/experiments/debug.conf) into results/
	@EXPERIMENT=debug lab/experiment

STRESS_OUT ?= $(LAB_BUILD)/stress/$(shell date +%Y%m%d-%H%M%S)
stress: kernel-lca-debug rootfs guest-bin ## the lineage stress on lca-debug (STRESS_SECONDS STRESS_CPUS STRESS_SWAP) into STRESS_OUT
	@lab/stress $(STRESS_OUT)

clock-check: ## does the guest clock follow the host? the clock experiment idle and beside a busy loop per core, compared (CLOCKS [icount wall])
	@lab/clock-check $(CLOCKS)

overhead: ## fork/exec/thread cost, task_struct layout, OOM decision cost (lab/experiments/overhead.conf) into results/
	@EXPERIMENT=overhead lab/experiment

merge: ## join the shards of one run (lab/run SHARD=K/N): OUT=results/NAME SHARDS="results/A results/B ..."
	@[ -n "$(OUT)" ] && [ -n "$(SHARDS)" ] || { echo "merge: give OUT=results/NAME SHARDS=\"DIR...\"" >&2; exit 2; }
	@lab/merge $(OUT) $(SHARDS)

report: ## tables and figures of a run: RUN=results/ID [the newest created]
	@[ -n "$(RUN)" ] || { echo "report: no run in results/ (make run, or RUN=dir)" >&2; exit 1; }
	@analysis/report $(RUN)

events: ## when the first OOM kill, subtree kill and the end came, per cell: RUN=results/ID [the newest created]
	@[ -n "$(RUN)" ] || { echo "events: no run in results/ (make run, or RUN=dir)" >&2; exit 1; }
	@analysis/events $(RUN)

herd: ## after a mass kill, how long until the bomb was gone: RUN="results/A ..." [AGAINST="results/B ..."] [OVER=4, seconds] [RUNS=1]
	@[ -n "$(RUN)" ] || { echo "herd: no run in results/ (make run, or RUN=dir)" >&2; exit 1; }
	@analysis/herd $(if $(OVER),--over $(OVER)) $(if $(filter 1,$(RUNS)),--runs) $(RUN) $(if $(AGAINST),--against $(AGAINST))

compare: ## compare two runs, non-zero on a regression: BASE=results/A NEW=results/B [TOLERANCE=0.02] [CONFIRM=1: rerun the undecidable cells, lab/confirm]
	@[ -n "$(BASE)" ] && [ -n "$(NEW)" ] || { echo "compare: give BASE=results/A NEW=results/B" >&2; exit 2; }
	@$(if $(filter 1,$(CONFIRM)),lab/confirm $(BASE) $(NEW),analysis/compare $(BASE) $(NEW) $(if $(TOLERANCE),--tolerance $(TOLERANCE)))

REFERENCE ?= results/reference
paper: ## paper/paper.md from REFERENCE [results/reference] and the committed defences, overhead, debug and kernel-line runs
	@analysis/paper $(REFERENCE) paper/paper.md --defences results/defences --overhead results/overhead --debug results/debug \
		--lines results/quick-6.1 results/quick-6.12 --lines results/overhead results/overhead-6.12

# make test runs make check first, before any kernel is built; the tests of
# both count in its last line (one tally per make invocation).
export LAB_TEST_TALLY := $(LAB_BUILD)/test-logs/tally.$(shell date +%s%N)
check: deps guest-bin ## lint and the host-only tests, no kernel: the quick loop
	@lab/test/run lint unit

test: check $(addprefix kernel-,$(TEST_BUILDS)) rootfs ## make check, then the real boots of TEST_BUILDS; last line: N passed, N failed (both)
	@lab/test/run boot smoke lca line

test-stock: check kernel-stock kernel-lca kernel-lca-debug rootfs ## the boots that need the stock build (not in make test: CI's time)
	@lab/test/run stock

lint: deps ## shellcheck every script
	@lab/test/run lint

clean: ## remove boot scratch directories under LAB_BUILD
	rm -rf "$(LAB_BUILD)/boots"

distclean: clean ## remove LAB_BUILD entirely (kernel trees, images, ccache)
	rm -rf "$(LAB_BUILD)"
