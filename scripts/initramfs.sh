#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# initramfs.sh BUILD: build the selftests (static) and pack busybox, the
# guest scripts, the build's klog modules and the test binaries into
# $KLOG_CACHE/build-BUILD/klog-initramfs.cpio.gz, with blktrace and
# blkparse and their shared libraries.
. "$(dirname "$0")/common.sh"
build=$1
b=$KLOG_CACHE/build-$build
root=$b/klog-initramfs
rm -rf "$root"
mkdir -p "$root"/{bin,dev,proc,sys,tmp,guest,tests,lib/modules}
cp /bin/busybox "$root/bin/busybox"
file "$root/bin/busybox" | grep -q "statically linked" ||
	die "/bin/busybox is not static: apt-get install busybox-static"
install -m 755 "$KLOG_REPO/guest/init" "$root/init"
install -m 644 "$KLOG_REPO"/guest/*.sh "$root/guest/"
# The document whose walk-through guest/doc-example.sh runs, as patched.
[ ! -f "$KSRC/Documentation/trace/klog.rst" ] || install -m 644 "$KSRC/Documentation/trace/klog.rst" "$root/guest/"

# Modules: the in-tree klog ones, plus external handler modules (if any).
for m in $(cd "$b" && find lib samples/klog kernel/klog-mod.ko -name '*.ko' 2>/dev/null); do
	cp "$b/$m" "$root/lib/modules/"
done
# The tree's null_blk, with the series' example patch, for make run.
[ ! -f "$b/drivers/block/null_blk/null_blk.ko" ] || cp "$b/drivers/block/null_blk/null_blk.ko" "$root/lib/modules/"
for m in ${KLOG_EXTRA_MODULES:-}; do
	cp "$m" "$root/lib/modules/"
done

# null_blk three ways for the block-load bench rows, each built the same
# way (an external module against this build): the pristine driver (no
# instrumentation), the tree's (with the series' klog example patch) and
# the patched one with its klog calls turned into trace_printk() and
# trace_puts() (bench/null_blk-as-trace.h).
if [ -f "$b/drivers/block/null_blk/null_blk.ko" ]; then
	for v in plain klog trace; do
		d=$b/null_blk-$v
		rm -rf "$d"; mkdir -p "$d"
		if [ $v = plain ]; then
			git -C "$KSRC" archive pristine drivers/block/null_blk | tar -x -C "$d" --strip-components=3
		else
			cp "$KSRC"/drivers/block/null_blk/* "$d/"
		fi
		if [ $v = trace ]; then
			cp "$KLOG_REPO/bench/null_blk-as-trace.h" "$d/"
			echo 'ccflags-y += -include $(src)/null_blk-as-trace.h' >> "$d/Makefile"
		fi
		kmake "$build" M="$d" modules
		cp "$d/null_blk.ko" "$root/lib/modules/null_blk-$v.ko"
	done
fi
gcc -O2 -Wall -Wextra -Werror -static -o "$root/bin/blkload" "$KLOG_REPO/bench/blkload.c"
# blktrace and blkparse (Debian's, dynamically linked) for relay's oldest
# client in the test job: each with the shared libraries it needs and
# the dynamic loader, at the paths the binaries name.
for p in /usr/sbin/blktrace /usr/bin/blkparse; do
	[ -x "$p" ] || die "no $p: apt-get install blktrace"
	cp "$p" "$root/bin/"
	for lib in $(ldd "$p" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }'); do
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
done

# Selftests, through their in-tree Makefile (lib.mk), linked statically.
st=$KSRC/tools/testing/selftests/klog
if [ -f "$st/Makefile" ]; then
	make -s -C "$b" headers >/dev/null
	rm -rf "$b/klog-selftests"; mkdir -p "$b/klog-selftests"
	make -s -j"$JOBS" -C "$st" OUTPUT="$b/klog-selftests" KHDR_INCLUDES="-isystem $b/usr/include" \
		CC="ccache gcc" LDFLAGS=-static >/dev/null
	find "$b/klog-selftests" -maxdepth 1 -type f -perm -u+x -exec cp {} "$root/tests/" \;
	for f in settings config; do [ -f "$st/$f" ] && cp "$st/$f" "$root/tests/$f.txt"; done
fi
# The klog tool and the samples' user programs, from the patched tree,
# linked statically, built in a copy of the parts they use (the tool
# compiles tools/lib/klog and kernel/klog_{format,query}.h; the samples
# include the tool's stream decoder) so that the tree stays clean.
u=$b/klog-user
rm -rf "$u"; mkdir -p "$u/tools/lib" "$u/kernel" "$u/samples"
cp -r "$KSRC/tools/klog" "$u/tools/"
[ ! -d "$KSRC/tools/lib/klog" ] || cp -r "$KSRC/tools/lib/klog" "$u/tools/lib/"
cp "$KSRC"/kernel/klog*.h "$u/kernel/"
[ ! -d "$KSRC/samples/klog" ] || cp -r "$KSRC/samples/klog" "$u/samples/"
for d in "$u/tools/klog" "$u"/samples/klog/*/; do
	[ -f "$d/Makefile" ] || continue
	make -s -j"$JOBS" -C "$d" CC="ccache gcc" KHDR_INCLUDES="-I$b/usr/include" LDFLAGS=-static
	find "$d" -maxdepth 1 -type f -perm -u+x -exec cp {} "$root/bin/" \;
done
# Shell selftests run; the helpers they source (not *_test.sh) only sit next
# to them, not executable, so that job-test.sh does not run them.
for f in "$st"/*.sh; do
	[ -f "$f" ] || continue
	case $f in
	*_test.sh) install -m 755 "$f" "$root/tests/" ;;
	*) install -m 644 "$f" "$root/tests/" ;;
	esac
done

(cd "$root" && find . | cpio -o -H newc -R 0:0 --quiet) | gzip -1 > "$b/klog-initramfs.cpio.gz"
log "initramfs: $(find "$root/lib/modules" -name '*.ko' | wc -l) modules, $(ls "$root/tests" | grep -vc '\.txt$') test programs, user programs: $(cd "$u" && ls -d tools/klog samples/klog/*/ 2>/dev/null | tr '\n' ' ')"
