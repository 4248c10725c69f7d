# SPDX-License-Identifier: GPL-2.0
# bench-table.sh RAW: turn job-bench.sh's raw lines into markdown tables.
#
# Every figure comes from rounds (r=1..R): a ratio is computed in each
# round from the two cases measured next to each other in that round,
# and the table gives its median over the rounds with the 10th and 90th
# percentiles (linear interpolation between the sorted rounds). A range
# that includes 1.0 is marked "not distinguishable". Absolute figures
# are medians over the rounds of each round's figure.
awk '
function kv(key,   i, a) {
	for (i = 1; i <= NF; i++) { split($i, a, "="); if (a[1] == key) return a[2] }
	return ""
}
# Statistics over the global array v[1..nv].
function vsort(   i, j, t) {
	for (i = 2; i <= nv; i++)
		for (j = i; j > 1 && v[j - 1] > v[j]; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
}
function q(p,   pos, lo) {	# v sorted
	if (!nv) return ""
	pos = 1 + (nv - 1) * p; lo = int(pos)
	return (lo < nv) ? v[lo] + (v[lo + 1] - v[lo]) * (pos - lo) : v[nv]
}
# vals(ARR, KEY): v = ARR[KEY, r] over the rounds that have it, sorted.
function vals(arr, key,   r) {
	nv = 0; delete v
	for (r = 1; r <= maxr; r++) if ((key, r) in arr) v[++nv] = arr[key, r]
	vsort()
}
function med(arr, key) { vals(arr, key); return nv ? q(0.5) : "n/a" }
# ratios(NUM, KEY, DEN, KEY2[, DEN2, KEY3]): v = per-round
# NUM[KEY] / (DEN[KEY2] + DEN2[KEY3]), sorted.
function ratios(num, k1, den, k2, den2, k3,   r, d) {
	nv = 0; delete v
	for (r = 1; r <= maxr; r++) {
		if (!((k1, r) in num) || !((k2, r) in den)) continue
		d = den[k2, r]
		if (k3 != "") { if (!((k3, r) in den2)) continue; d += den2[k3, r] }
		if (d > 0) v[++nv] = num[k1, r] / d
	}
	vsort()
}
# The ratio cells of v: "median | p10-p90 [not distinguishable]".
function rcells(   lo, hi) {
	if (!nv) return "n/a | n/a"
	lo = q(0.1); hi = q(0.9)
	return sprintf("%.2f | %.2f-%.2f%s", q(0.5), lo, hi,
		(lo <= 1 && hi >= 1) ? ", not distinguishable" : "")
}
function ns(x) { return (x == "n/a") ? x : sprintf("%.0f", x) }
function pk(ph, label, c, size, cpus) { return ph "|" label "|" c "|" size "|" cpus }
{ r = kv("r") + 0; if (r > maxr) maxr = r }
/^pc .*median_ns=/ {
	# a paired run (vs=): one key per pair of cases
	k = pk(kv("ph"), kv("label") (kv("vs") != "" ? "|" kv("vs") : ""), kv("case"), kv("size"), kv("cpus"))
	pm[k, r] = kv("median_ns") + 0; p99[k, r] = kv("p99_ns") + 0
	if (kv("vs") != "") { pvs[k, r] = kv("vs_median_ns") + 0; prat[k, r] = kv("ratio_milli") / 1000 }
}
/^nullblk .* chunk_ns=/ {
	nnb++
	nb[kv("v"), r] = kv("iops") + 0
	if (kv("chunk_ns") > 0) nbr[kv("v"), r] = 1e9 / kv("chunk_ns")
}
/^(stream|drain|emit) .* seconds=/ {
	k = $1 "|" kv("mode") "|" kv("subbuf") "|" kv("n"); ncol++
	s = kv("seconds"); mb = kv("bytes") / 1048576
	cmbs[k, r] = (s > 0) ? mb / s : 0
	crec[k, r] = kv("records") + 0; cmb[k, r] = mb; csec[k, r] = s + 0
	crps[k, r] = (s > 0) ? kv("records") / s : 0
	cseq[k, r] = kv("s") + 0
	cdrop[k, r] = kv("drops") + 0
	if (mb > 0 && kv("cpu_ticks") != "") ccpu[k, r] = kv("cpu_ticks") * 10 / mb
	if (kv("close_seconds") != "") cclose["close", r] = kv("close_seconds") + 0
}
/^dd .* seconds=/ {
	s = kv("seconds"); ddv[kv("s") + 0] = (s > 0) ? kv("bytes") / 1048576 / s : 0
	if (kv("bytes") > 0 && kv("cpu_ticks") != "")
		ddcpu[kv("s") + 0] = kv("cpu_ticks") * 10 / (kv("bytes") / 1048576)
}
# ddr(KEY, ROUND): the collector case KEY MB/s in ROUND over the mean
# of the dd runs just before and just after it; -1 if not measured.
function ddr(k, r,   s, d) {
	if (!((k, r) in cseq)) return -1
	s = cseq[k, r]
	if (!((s - 1) in ddv) || !((s + 1) in ddv)) return -1
	d = (ddv[s - 1] + ddv[s + 1]) / 2
	return (d > 0) ? cmbs[k, r] / d : -1
}
# ddratios(KEY): v = ddr(KEY) per round, sorted.
function ddratios(k,   r, x) {
	nv = 0; delete v
	for (r = 1; r <= maxr; r++)
		if ((x = ddr(k, r)) >= 0) v[++nv] = x
	vsort()
}
# turns(E): the MB/s / dd MB/s of a collector exactly as fast as dd that
# copies every record while emitters of E (MB/s / dd MB/s) run, the two
# taking turns on one host thread: 1 / (1/E + 1/1).
function turns(e) { return e / (e + 1) }
# ceilrows: each stream case with no loss against turns() of the
# emitters alone, per round; then that ceiling itself against dd.
function ceilrows(   n, ks, i, r, e, x) {
	n = split("read mmap", ks, " ")
	printf "\n| while every CPU emits | ratio | 10th-90th pct |\n|---|---:|---|\n"
	nv = 0; delete v
	for (r = 1; r <= maxr; r++)
		if ((e = ddr("emit|none|1048576|32", r)) > 0) v[++nv] = turns(e)
	vsort()
	printf "| ceiling: the emitters alone and dd taking turns, MB/s / dd MB/s | %s |\n", rcells()
	for (i = 1; i <= n; i++) {
		nv = 0; delete v
		for (r = 1; r <= maxr; r++) {
			e = ddr("emit|none|1048576|32", r)
			x = ddr("stream|" ks[i] "|1048576|16", r)
			if (e > 0 && x >= 0) v[++nv] = x / turns(e)
		}
		vsort()
		printf "| %s, 16 x 1048576, against that ceiling | %s |\n", ks[i], rcells()
	}
}
# colrows KEYS: a row per collector case of KEYS ("phase|mode|subbuf|n",
# space-separated); a stream or emit row says its sub-buffers, a drain
# row not; the emitters alone (mode none) have no collector CPU time.
function colrows(keys,   n, ks, i, k, f, rc, cpu) {
	n = split(keys, ks, " ")
	for (i = 1; i <= n; i++) {
		k = ks[i]; split(k, f, "|")
		ddratios(k)
		rc = rcells()
		cpu = med(ccpu, k)
		m = (f[2] == "none") ? "none: the emitters alone" : f[2]
		if (f[2] == "dd") m = "floor: dd of the channel files, one per CPU"
		printf "| %s |%s %.0f | %.1f | %.2f | %.0f | %.1f | %.0f | %s | %s |\n", m,
			(f[1] != "drain") ? " " f[4] " x " f[3] " |" : "", med(crec, k), med(cmb, k),
			med(csec, k), med(crps, k), med(cmbs, k), med(cdrop, k),
			cpu == "n/a" ? "-" : sprintf("%.1f", cpu), rc
	}
}
# th TITLE HEADER RULE: a blank line, a "###" title, a blank line and
# the first two lines of a table
function th(title, header, rule) { printf "\n### %s\n\n%s\n%s\n", title, header, rule }
/^time / { took = took (took ? ", " : "") $2 " " kv("seconds") " s" }
/^sitebytes / { sitebytes = kv("bytes"); planbytes = kv("plan") }
/^regwait .*longest_flip_median_ns=/ {
	wreg["w", r] = kv("register_median_ns") + 0
	wlong["w", r] = kv("longest_flip_median_ns") + 0
}
/^regfloor .*pair_median_ns=/ {
	flon["f", r] = kv("enable_median_ns") + 0
	flpair["f", r] = kv("pair_median_ns") + 0
}
/^register .*register_median_ns=/ {
	regsites[kv("v")] = kv("enabled_sites")
	regns[kv("v"), r] = kv("register_median_ns") + 0
	pairns[kv("v"), r] = kv("pair_median_ns") + 0
}
# site_off_row: klog_printk at a disabled site (null handler) against
# klog_printk with no handler
function site_off_row(   k, k2, rc) {
	k = pk("N", "site-off,null-handler", "klog_off", 32, 1)
	k2 = pk("N", "no-handler", "klog_printk", 32, 1)
	ratios(pm, k, pm, k2)
	rc = rcells()
	printf "| klog_printk, site disabled | null-handler | %s | %s | klog_printk, no handler | %s | %s |\n",
		ns(med(pm, k)), ns(med(p99, k)), ns(med(pm, k2)), rc
}
# pcrow CASE LABEL PH SIZE CPUS REFNAME REFCASE [REFCASE2]
function pcrow(c, label, ph, size, cpus, refname, rc, rc2,   k, k2, k3, rm) {
	k = pk(ph, label, c, size, cpus)
	k2 = (rc == "") ? "" : pk(ph, (rc == "empty") ? "no-handler" : (rc ~ /^(relay_write|local_clock)$/) ? "floor" : "peer", rc, size, cpus)
	k3 = (rc2 == "") ? "" : pk(ph, "floor", rc2, size, cpus)
	if (rc == "") {
		printf "| %s | %s | %s | %s | (reference) | | | |\n", c, label, ns(med(pm, k)), ns(med(p99, k))
		return
	}
	rm = med(pm, k2)
	if (k3 != "") rm = (rm == "n/a" || med(pm, k3) == "n/a") ? "n/a" : rm + med(pm, k3)
	ratios(pm, k, pm, k2, pm, k3)
	rc = rcells()	# before med(), which reuses v
	printf "| %s | %s | %s | %s | %s | %s | %s |\n", c, label, ns(med(pm, k)), ns(med(p99, k)),
		refname, ns(rm), rc
}
# floorrow LABEL KLOG FLOOR: a row of the registration floor table,
# KLOG["many", r] against FLOOR["f", r]
function floorrow(label, klog, floor,   rc) {
	ratios(klog, "many", floor, "f")
	rc = rcells()	# before med(), which reuses v
	printf "| %s | %s | %s | %s |\n", label, ns(med(floor, "f")), ns(med(klog, "many")), rc
}
# pairrow CASE LABEL PH SIZE CPUS REFNAME VS: a paired run ("pair,"
# LABEL): CASE against VS, the ratio per round that of the run.
function pairrow(c, label, ph, size, cpus, refname, vs,   k, rc) {
	k = pk(ph, "pair," label "|" vs, c, size, cpus)
	vals(prat, k)
	rc = rcells()
	printf "| %s | %s | %s | %s | %s | %s | %s |\n", c, label, ns(med(pm, k)), ns(med(p99, k)),
		refname, ns(med(pvs, k)), rc
}
END {
	printf "%d rounds. Each ratio is computed per round from cases measured next to each\n", maxr
	print "other in that round (their order rotated and reversed from round to round);"
	print "\"ratio\" is its median over the rounds, then its 10th-90th percentile range."
	print "Absolute figures are medians over the rounds."
	if (took != "") print "The rounds took: " took "."
	th("Cost per call, 1 CPU, 32-byte payload or the same format",
	   "| case | handler | median ns | p99 ns | compared with | its median ns | ratio | 10th-90th pct |",
	   "|---|---|---:|---:|---|---:|---:|---|")
	pcrow("empty", "no-handler", "N", 32, 1, "trace_puts", "trace_puts")
	pcrow("klog_printk", "no-handler", "N", 32, 1, "empty loop", "empty")
	pcrow("klog_raw", "no-handler", "N", 32, 1, "empty loop", "empty")
	# The same three rows for each handler: the null one, then the relay modes.
	split("null-handler handler,no-overwrite handler,overwrite", hl, " ")
	split("N C O", hph, " ")
	for (h = 1; h <= 3; h++) {
		pairrow("klog_printk", hl[h], hph[h], 32, 1, "trace_printk (paired)", "trace_printk")
		pairrow("klog_printk", hl[h], hph[h], 32, 1, "klog_raw, 22 bytes (paired)", "klog_raw")
		pcrow("klog_raw", hl[h], hph[h], 32, 1, "trace_puts", "trace_puts")
		if (h == 1)
			site_off_row()
	}
	pcrow("klog_raw", "handler,overwrite", "O", 32, 1, "relay_write + local_clock", "relay_write", "local_clock")
	pcrow("trace_printk", "peer", "N", 32, 1, "trace_puts", "trace_puts")
	pcrow("trace_puts", "peer", "N", 32, 1)
	pcrow("printk", "peer", "N", 32, 1, "trace_printk", "trace_printk")
	pcrow("args_pack", "peer", "N", 32, 1, "trace_printk", "trace_printk")
	pcrow("vsnprintf", "peer", "N", 32, 1, "trace_printk", "trace_printk")
	pcrow("local_clock", "floor", "N", 32, 1, "trace_puts", "trace_puts")
	pcrow("relay_write", "floor", "N", 32, 1, "trace_puts", "trace_puts")
	pcrow("memcpy", "floor", "N", 32, 1, "trace_puts", "trace_puts")
	print ""
	print "Rows with a handler are measured with the peers they are compared with in"
	print "the same phase of each round: no handler (N), the relay handler in"
	print "overwrite mode (O), a draining collector (C). \"(paired)\": the two"
	print "cases in one run, alternating 64-call batches (which goes first"
	print "swapped from pair to pair); the ratio of a run is the median of the"
	print "ratios of its batch pairs, so a change in the speed of the host, which"
	print "moves every case by tens of percent within seconds here, lands on both."
	print ""
	print "\"site disabled\": a klog_printk() site turned off through the control"
	print "file while a (do-nothing) handler is registered, against the same call"
	print "with no handler at all: both are one branch not taken, so the ratio"
	print "must be within noise (a 10th-90th range that includes 1.0)."
	print ""
	print "### The call-site table"
	print ""
	if (sitebytes != "")
		printf "Each call site costs one struct klog_site, %d bytes, in the `__klog_sites` section of the kernel or module that has it (its file, function and format strings are literals of the call); the core adds one struct klog_table per module and, allocated with it, one struct klog_args_plan, %d bytes, per klog_printk() site whose format can be recorded in binary. A module unloaded leaves a copy of the descriptions of its sites (strings included) for the sites file, at most 65536 sites.\n", sitebytes, planbytes
	else
		print "Site size: n/a"
	if ("few" in regsites) {
		th("Registering the first handler, with few and with 10,000 more call sites",
		   "| enabled sites | register median ns | register + unregister median ns | register / with few sites | 10th-90th pct |",
		   "|---:|---:|---:|---:|---|")
		printf "| %d | %s | %s | (reference) | |\n", regsites["few"], ns(med(regns, "few")), ns(med(pairns, "few"))
		if ("many" in regsites) {
			ratios(regns, "many", regns, "few")
			rc = rcells()	# before med(), which reuses v
			printf "| %d | %s | %s | %s |\n", regsites["many"], ns(med(regns, "many")), ns(med(pairns, "many")), rc
		}
		print ""
		print "klog_bench registers its do-nothing handler as the first and only"
		print "one, and unregisters it, 20 times a round, with the sites there are"
		print "and then with klog_bench_sites loaded (10,000 klog_raw() sites, all"
		print "enabled). Registering flips the 16 keys of the core, klog_active[], but"
		print "every call site tests one of them with a branch of its own, so"
		print "flipping them patches every site (in batches, under the jump label"
		print "mutex, which a module load also takes): the time grows with the"
		print "number of sites. Unregistering also waits for an RCU grace period,"
		print "which runs while the keys are patched off."
	}
	if (("w", 1) in wlong) {
		th("What a module load waits for during that registration, klog_bench_sites loaded",
		   "| register median ns | longest jump label update of another key, median ns | longest / register | 10th-90th pct |",
		   "|---:|---:|---:|---|")
		ratios(wlong, "w", wreg, "w")
		rc = rcells()
		printf "| %s | %s | %s |\n", ns(med(wreg, "w")), ns(med(wlong, "w")), rc
		print ""
		print "klog_bench_sites registers a do-nothing handler 3 times a round while"
		print "a thread flips a static key of its own in a loop: each flip takes the"
		print "jump label mutex, as a module load does. The keys of the core are"
		print "flipped one at a time, outside its mutex: where CPUs run in parallel"
		print "a flip waits for the update of one or two keys, not for the whole"
		print "registration. Under single-threaded TCG, as here, the vCPU of the"
		print "waiting thread gets host time only where the emulator switches"
		print "vCPUs, so whether it claims the mutex between two keys or waits for"
		print "the whole registration (a ratio of 1) is the emulator, not the split."
	}
	if (("f", 1) in flpair && "many" in regsites) {
		th("The floor under that registration: the kernel patching 10,000 sites",
		   "| flip | floor_key at 10,000 sites, median ns | klog with " regsites["many"] " sites, median ns | klog / floor_key | 10th-90th pct |",
		   "|---|---:|---:|---:|---|")
		floorrow("on: register", regns, flon)
		floorrow("on and off: register + unregister", pairns, flpair)
		print ""
		print "floor_key is a static key of klog_bench_sites tested by a branch next"
		print "to each of its 10,000 klog_raw() sites and by nothing else: enabling"
		print "and disabling it (5 times a round) is what the kernel takes to patch"
		print "those sites, with no klog code involved. The klog column is the"
		print "registration row above with klog_bench_sites loaded, whole. A ratio"
		print "near 1 says that the registration with those sites is the jump label"
		print "patching of their branches: on x86 each patched branch is written"
		print "three times (int3, the rest of the instruction, its first byte:"
		print "text_poke_bp_batch()), each time through the temporary mm of"
		print "text_poke(). Registration in O(1) of the sites would need a site"
		print "test that is not patched, a load and a compare at every enabled"
		print "site while no handler is registered."
	}
	th("Record size (klog_raw with the handler in overwrite mode)",
	   "| bytes | klog_raw median ns | trace_puts median ns | relay_write median ns | klog_raw / trace_puts | 10th-90th pct |",
	   "|---:|---:|---:|---:|---:|---|")
	ns_ = split("16 32 64 256 1024 4096", sizes, " ")
	for (i = 1; i <= ns_; i++) {
		k = pk("O", "handler,overwrite", "klog_raw", sizes[i], 1)
		k2 = pk("O", "peer", "trace_puts", sizes[i], 1)
		ratios(pm, k, pm, k2)
		rc = rcells()
		tp = ns(med(pm, k2))
		# an ftrace event holds less than a page: the call is refused
		if (sizes[i] >= 4096) { tp = tp " (refused)"; rc = "n/a: trace_puts() cannot take 4 KiB | " }
		printf "| %s | %s | %s | %s | %s |\n", sizes[i], ns(med(pm, k)), tp,
			ns(med(pm, pk("O", "floor", "relay_write", sizes[i], 1))), rc
	}
	th("Writer CPUs at once (32 bytes, handler in overwrite mode)",
	   "| CPUs | klog_raw median ns | p99 ns | trace_puts median ns | klog_raw / trace_puts | 10th-90th pct |",
	   "|---:|---:|---:|---:|---:|---|")
	for (cpus = 1; cpus <= 4; cpus *= 2) {
		k = pk("O", "handler,overwrite", "klog_raw", 32, cpus)
		k2 = pk("O", "peer", "trace_puts", 32, cpus)
		ratios(pm, k, pm, k2)
		if (!nv) continue
		rc = rcells()
		printf "| %s | %s | %s | %s | %s |\n", cpus, ns(med(pm, k)), ns(med(p99, k)),
			ns(med(pm, k2)), rc
	}
	if (!ncol) print "\n(No collector rows: a per-call trial.)"
	if (ncol) {
	th("The collector streaming while every CPU emits (64-byte raw records, task context; seconds: the emitters run)",
	   "| mode | sub-buffers | records | MB | seconds | records/s | MB/s | dropped | collector CPU ms per MB | MB/s / dd MB/s | 10th-90th pct |",
	   "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
	colrows("stream|read|262144|4 stream|read|1048576|16 stream|mmap|262144|4 stream|mmap|1048576|16 emit|none|1048576|32")
	ceilrows()
	print ""
	print "The ceiling is what a collector exactly as fast as dd (one copy of"
	print "each byte into tmpfs, nothing else) would reach if it copied every"
	print "record while the emitters ran: single-threaded TCG runs the emitters"
	print "and the collector in turn on one host thread, so their times add up,"
	print "1 / (1 / emitters alone + 1 / dd), per round. Bytes still in the"
	print "buffers when the emitters end are drained after the timed run, so a"
	print "row may pass the ceiling by copying less while the emitters run."
	th("The collector alone (drains 64-byte raw records already in 32 x 1 MiB per CPU)",
	   "| mode | records | MB | seconds | records/s | MB/s | dropped | collector CPU ms per MB | MB/s / dd MB/s | 10th-90th pct |",
	   "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
	colrows("drain|read|1048576|32 drain|mmap|1048576|32 drain|dd|1048576|32")
	for (i = 1; i <= 2; i++) {
		m = (i == 1) ? "read" : "mmap"
		ratios(cmbs, "drain|" m "|1048576|32", cmbs, "drain|dd|1048576|32")
		if (nv) printf "%s| %s against the floor, MB/s / MB/s | %s |\n",
			(i == 1) ? "\n| drain | ratio | 10th-90th pct |\n|---|---:|---|\n" : "", m, rcells()
	}
	vals(cclose, "close")
	if (nv) printf "\nClosing the channel after the floor row (echo 0 > create: an expedited RCU grace period, then relay_close() frees 4 x 32 MiB): %.3f s (10th-90th pct %.3f-%.3f), which the seconds of a collector drain row include (its end) and those of the floor row do not.\n", q(0.5), q(0.1), q(0.9)
	nv = 0; delete v
	for (s in ddv) v[++nv] = ddv[s]
	vsort()
	if (nv) printf "\ndd of the same bytes to the same tmpfs, before and after each case in the same rounds: %.1f MB/s (10th-90th pct %.1f-%.1f over %d runs)", q(0.5), q(0.1), q(0.9), nv
	else printf "\ndd of the same bytes to the same tmpfs: n/a"
	nv = 0; delete v
	for (s in ddcpu) v[++nv] = ddcpu[s]
	vsort()
	if (nv) printf "; dd CPU ms per MB %.1f (10th-90th pct %.1f-%.1f) (its CPU time taken as for the collector)\n", q(0.5), q(0.1), q(0.9)
	else print "; dd CPU time: n/a"
	print ""
	print "The floor row reads the records of a drain from the channel files"
	print "(cpuN), one dd per CPU, bs=4M: read(2) copies whole sub-buffers out"
	print "of relay and write(2) copies them again into tmpfs, nothing decoded,"
	print "no channel made or closed in the time. The collector in read mode"
	print "makes the same two copies, and its time also counts its end (the"
	print "channel closed: an expedited RCU grace period and the freeing of"
	print "128 MiB); in mmap mode it makes one copy, write(2) from the mapping."
	}
	if (!nnb) { print "\n(No null_blk rows: a per-call trial.)"; exit }
	th("A driver: null_blk, 4 KiB O_DIRECT reads from every CPU (reads/s)",
	   "| null_blk | reads/s of a running CPU | wall-clock reads/s, all CPUs | / plain | 10th-90th pct |",
	   "|---|---:|---:|---:|---|")
	nvar = split("plain klog-off klog-on trace_printk", vars, " ")
	for (i = 1; i <= nvar; i++) {
		m = med(nbr, vars[i]); w = med(nb, vars[i])
		if (vars[i] == "plain") { printf "| plain | %s | %s | (reference) | |\n", ns(m), ns(w); continue }
		ratios(nbr, vars[i], nbr, "plain")
		printf "| %s | %s | %s | %s |\n", vars[i], ns(m), ns(w), rcells()
	}
	print ""
	print "Reads/s of a running CPU: 10^9 / the median time per read over chunks"
	print "of 64 reads (blkload chunk_ns); the ratio is computed from it, per"
	print "round. Wall-clock reads/s also counts the time the emulator waited for"
	print "a host CPU: it follows the load on the host, not the driver."
}' "$1"
