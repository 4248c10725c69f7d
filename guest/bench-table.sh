# SPDX-License-Identifier: GPL-2.0
# bench-table.sh RAW: turn job-bench.sh's raw lines into markdown tables.
# Ratios compare cases measured in the same boot: text cases against
# trace_printk, byte cases against trace_puts of the same size.
awk '
function kv(key,   i, a) {
	for (i = 2; i <= NF; i++) { split($i, a, "="); if (a[1] == key) return a[2] }
	return ""
}
function ratio(x, y) { return (y > 0) ? sprintf("%.2f", x / y) : "n/a" }
function median(v,   i, j, t, a, k) {	# of nb[v, 1..nbn[v]]
	k = nbn[v]
	for (i = 1; i <= k; i++) a[i] = nb[v, i]
	for (i = 2; i <= k; i++)
		for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
	return (k % 2) ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
}
function runs(v,   i, s) {
	for (i = 1; i <= nbn[v]; i++) s = s (i > 1 ? ", " : "") nb[v, i]
	return s
}
/median_ns=/ {
	n++; label[n] = $1; c[n] = kv("case"); sz[n] = kv("size"); cpu[n] = kv("cpus")
	med[n] = kv("median_ns"); p99[n] = kv("p99_ns"); mean[n] = kv("mean_ns")
	if ($1 == "peer" && c[n] == "trace_printk") tp = med[n]
	if ($1 == "peer" && c[n] == "trace_puts") tu = med[n]
	if ($1 == "size" && c[n] == "trace_puts") tus[sz[n]] = med[n]
	if ($1 == "cpus" && c[n] == "trace_puts") tuc[cpu[n]] = med[n]
}
/^collector mode=/ { ncol++; col[ncol] = $0 }
/^drain mode=/ { ndr++; dr[ndr] = $0 }
/^nullblk .* iops=/ {
	v = $2; if (!(v in nbn)) { nv++; nbv[nv] = v }
	nbn[v]++; nb[v, nbn[v]] = kv("iops")
}
/^dd / { ddb = kv("bytes"); dds = kv("seconds") }
END {
	print "### Cost per call, 1 CPU, 32-byte payload or the same format"
	print ""
	print "| case | handler | median ns | p99 ns | mean ns | ratio to trace_printk / trace_puts |"
	print "|---|---|---:|---:|---:|---:|"
	for (i = 1; i <= n; i++) {
		if (label[i] == "size" || label[i] == "cpus") continue
		text = (c[i] == "klog_printk" || c[i] == "trace_printk" || c[i] == "printk")
		r = text ? ratio(med[i], tp) : ratio(med[i], tu)
		printf "| %s | %s | %s | %s | %s | %s |\n", c[i], label[i], med[i], p99[i], mean[i], r
	}
	print ""
	print "### Record size (klog_raw with the handler in overwrite mode)"
	print ""
	print "| bytes | klog_raw median ns | trace_puts median ns | relay_write median ns | klog_raw / trace_puts |"
	print "|---:|---:|---:|---:|---:|"
	for (i = 1; i <= n; i++) if (label[i] == "size" && c[i] == "klog_raw") {
		for (j = 1; j <= n; j++) if (label[j] == "size" && c[j] == "relay_write" && sz[j] == sz[i]) rw = med[j]
		printf "| %s | %s | %s | %s | %s |\n", sz[i], med[i], tus[sz[i]], rw, ratio(med[i], tus[sz[i]])
	}
	print ""
	print "### Writer CPUs at once (32 bytes, handler in overwrite mode)"
	print ""
	print "| CPUs | klog_raw median ns | p99 ns | trace_puts median ns | klog_raw / trace_puts |"
	print "|---:|---:|---:|---:|---:|"
	for (i = 1; i <= n; i++) if (label[i] == "cpus" && c[i] == "klog_raw")
		printf "| %s | %s | %s | %s | %s |\n", cpu[i], med[i], p99[i], tuc[cpu[i]], ratio(med[i], tuc[cpu[i]])
	print ""
	print "### The collector streaming while every CPU emits (64-byte raw records, task context; seconds: the emitters run)"
	print ""
	print "| mode | sub-buffers | records | MB | seconds | records/s | MB/s | dropped | collector CPU ms per MB | MB/s / dd MB/s |"
	print "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"
	ddr = (dds > 0) ? ddb / 1048576 / dds : 0
	for (i = 1; i <= ncol; i++) {
		$0 = col[i]
		s = kv("seconds"); b = kv("bytes"); mb = b / 1048576
		printf "| %s | %s x %s | %s | %.1f | %s | %.0f | %.1f | %s | %.1f | %s |\n",
			kv("mode"), kv("n"), kv("subbuf"), kv("records"), mb, s,
			(s > 0) ? kv("records") / s : 0, (s > 0) ? mb / s : 0, kv("drops"),
			(mb > 0) ? kv("cpu_ticks") * 10 / mb : 0, ratio((s > 0) ? mb / s : 0, ddr)
	}
	print ""
	print "### The collector alone (drains 64-byte raw records already in 32 x 1 MiB per CPU)"
	print ""
	print "| mode | records | MB | seconds | records/s | MB/s | dropped | collector CPU ms per MB | MB/s / dd MB/s |"
	print "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
	for (i = 1; i <= ndr; i++) {
		$0 = dr[i]
		s = kv("seconds"); b = kv("bytes"); mb = b / 1048576
		printf "| %s | %s | %.1f | %s | %.0f | %.1f | %s | %.1f | %s |\n",
			kv("mode"), kv("records"), mb, s,
			(s > 0) ? kv("records") / s : 0, (s > 0) ? mb / s : 0, kv("drops"),
			(mb > 0) ? kv("cpu_ticks") * 10 / mb : 0, ratio((s > 0) ? mb / s : 0, ddr)
	}
	printf "\ndd of the same bytes to the same tmpfs: %.1f MB/s\n", ddr
	print ""
	print "### A driver: null_blk, 4 KiB O_DIRECT reads from every CPU (reads/s)"
	print ""
	print "| null_blk | median reads/s | runs | / uninstrumented |"
	print "|---|---:|---|---:|"
	for (i = 1; i <= nv; i++)
		printf "| %s | %.0f | %s | %s |\n", nbv[i], median(nbv[i]), runs(nbv[i]),
			ratio(median(nbv[i]), median("plain"))
}' "$1"
