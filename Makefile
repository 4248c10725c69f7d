# SPDX-License-Identifier: GPL-2.0
# klog: the two commands are `make run` (main job) and `make check` (all
# tests). Both start from nothing: they install Debian packages, unpack
# linux-source-6.12, apply patches/ and build with ccache in $(KLOG_CACHE).

KLOG_CACHE ?= /var/cache/klog
export KLOG_CACHE
S := scripts

.PHONY: all run check check-full check-series bench deps patches tree kernel initramfs vm-test clean-cache help

all: help

help:
	@echo "make run      build, boot the VM, load the handler, collect klog traffic, show it"
	@echo "make check    every test: patches, build, lint, stubs, KUnit and selftests in the VM"
	@echo "make bench    benchmarks on a non-debug kernel; writes BENCHMARKS.md"
	@echo "make check-full  make check, then a KCSAN kernel with the full-size gauntlet"
	@echo "make check-series  every patch of patches/ builds on its own (slow)"
	@echo "make patches  regenerate patches/ from the sources and series/"
	@echo "make kernel   build the test kernel in $(KLOG_CACHE)/build-test"

deps:
	$(S)/deps.sh

patches: deps
	$(S)/mkpatches.sh

tree: deps
	$(S)/tree.sh

kernel: tree
	$(S)/build-kernel.sh test config/base.config config/test.config

initramfs: kernel
	$(S)/initramfs.sh test

vm-test: initramfs
	VERBOSE=1 $(S)/vm.sh test test $(KLOG_CACHE)/console-test.log
	$(S)/vmlog.py $(KLOG_CACHE)/console-test.log

run: deps
	$(S)/run.sh

check:
	$(S)/check.sh

bench:
	$(S)/bench.sh

check-full:
	$(S)/check-full.sh

check-series:
	$(S)/check-series.sh

clean-cache:
	rm -rf $(KLOG_CACHE)/build-* $(KLOG_CACHE)/linux
