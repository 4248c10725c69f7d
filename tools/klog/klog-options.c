// SPDX-License-Identifier: GPL-2.0
/*
 * klog-options.c - the klog collector's command line
 *
 * parse_opts() fills struct opts from argv: relay_app's common options
 * (-b, -n, -m, -o, -t, -d, -x, -q, -h, and the COMMAND after them)
 * through ra_getopt(), klog's own beside them; the report's filters are
 * parsed by filter_option() (klog-filter.c), and -e and --sites queries
 * checked by sitectl_check_query() (klog-sitectl.c). Then it refuses,
 * with a usage error (exit status 2) that names them, options of
 * different jobs given together: a collection's with a report's (-r), a
 * recorder's (-R, -s, --status, --thaw, --stop) with either, --sites
 * with anything but -d. What each job does is in klog.c's overview;
 * print_help() is --help's text (scripts/check-man.sh checks that klog.1
 * describes every option in it).
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "klog-app.h"

static void print_help(FILE *f)
{
	static const char help[] =
		"Usage: klog [-b BYTES] [-n N] [-m read|mmap] [-g] [-o DIR] [--force] [-f] [-x]\n"
		"            [-t SECONDS] [--max-size BYTES] [--progress[=SECONDS]] [--bytes]\n"
		"            [-q] [-e QUERY]... [--follow-output FILE] [--color WHEN]\n"
		"            [[--] COMMAND [ARGS...]]\n"
		"       klog record [OPTIONS] [--] COMMAND [ARGS...]   (the same)\n"
		"       klog start [OPTIONS]                (the same, in the background)\n"
		"       klog status [--bytes] | klog stop [--wait SECONDS]\n"
		"       klog -r [DIR] [-f] [FILTERS] [--time abs|rel|delta|wall]\n"
		"            [--hex | --stat [--bytes] [--top N] [--sort KEY] | --json | --ctf OUT]\n"
		"            [-q] [--color WHEN] [--no-pager]\n"
		"       klog --plot FILE [DIR] [FILTERS] [--force] [-q]  (an SVG picture)\n"
		"       klog -R [-b BYTES] [-n N] [-g] [-x] (start a flight recorder)\n"
		"       klog -s [-o DIR] [--force] [-q]     (snapshot it)\n"
		"       klog --status | --thaw | --stop     (see it, thaw it, stop it)\n"
		"       klog --sites [QUERY]                (list the call sites)\n"
		"\n"
		"Collect the records of klog_printk()/klog_raw() from the klog relay channel\n"
		"(one buffer per CPU) into DIR/cpu0 .. DIR/cpuN-1 (DIR: "
		KLOG_OUT_DIR " unless -o),\n"
		"or print saved records merged by time. Needs root and the klog relay module\n"
		"(klog-mod). The channel is created in no-overwrite mode: records that find a\n"
		"buffer full are dropped and counted, and the summary says how many.\n"
		"\n"
		"Once it is recording, klog prints \"klog: recording ...\" on stderr (also with\n"
		"-q): a workload started after that line is recorded. Given a COMMAND, klog\n"
		"runs it at that point and stops when it exits (or at -t, --max-size, Ctrl-C\n"
		"or SIGTERM, after which it ends the COMMAND: SIGTERM, or the signal it got).\n"
		"E.g. klog -o /tmp/out -- sh -c 'insmod mymod.ko && rmmod mymod'\n"
		"\n"
		"If the channel already exists - its collector was killed, or it was set up\n"
		"by hand - klog attaches to it instead of recreating it, and collects the\n"
		"records its buffers still hold (-b, -n and -g then do not apply). With the\n"
		"killed collector's -o DIR it resumes its files: an unfinished write is cut\n"
		"off, new records are appended, and records the killed collector had taken\n"
		"from the kernel but not saved are counted and reported as lost (none in\n"
		"mmap mode). A flight recorder is never attached to nor destroyed unless -x\n"
		"is given. Only one collector (klog, klog -R, klog -s) can use the channel\n"
		"at a time.\n"
		"\n"
		"klog start takes a collection's options (no -f, no COMMAND), detaches once it\n"
		"is recording and exits 0 (or 1 and why it could not start). klog status shows\n"
		"the session: pid, DIR, time, records, bytes saved, rates, --max-size's share,\n"
		"drops per CPU and cause. klog stop stops it as SIGTERM does, waits until it\n"
		"has exited and prints what it printed since it detached (DIR/log): its\n"
		"summary. After a kill -KILL, klog stop says so, puts back the call sites -e\n"
		"turned off, and leaves the channel to the next collection into DIR (resumed).\n"
		"\n"
		"  -b, --subbuf-size BYTES  sub-buffer size, 1k to 64M, a multiple of 8 (k, M,\n"
		"                           G suffixes; default " STR(KLOG_SUBBUF_SIZE) ")\n"
		"  -n, --n-subbufs N        sub-buffers per CPU, 2 to 65536 (default "
		STR(KLOG_N_SUBBUFS) ")\n"
		"  -m, --mode read|mmap     read(2) the buffers (default) or mmap(2) them\n"
		"  -g, --global             one buffer for all CPUs (DIR/cpu0), in one order\n"
		"  -o, --output DIR         write DIR/cpuN, the raw stream of each CPU, and\n"
		"                           DIR/meta, sites, kallsyms (default "
		KLOG_OUT_DIR "); a new\n"
		"                           or empty directory, or a killed collector's (resumed)\n"
		"      --force              write into a DIR that is not empty, replacing files\n"
		"                           of the same names; with --plot, replace FILE\n"
		"  -t, --duration SECONDS   stop after SECONDS, 1e-9 to 1e9 (default: at\n"
		"                           Ctrl-C or SIGTERM)\n"
		"      --max-size BYTES     stop when the saved files reach BYTES together (k, M,\n"
		"                           G suffixes); records read after that are counted,\n"
		"                           not saved\n"
		"      --progress[=SECONDS] print the status (time, records, bytes saved, rates,\n"
		"                           --max-size's share, drops) as a line on stderr\n"
		"                           every SECONDS (default "
		STR(KLOG_PROGRESS_S) "), also with -q, not\n"
		"                           the line redrawn each second on a terminal\n"
		"  -e, --enable QUERY       record only the call sites QUERY selects, a control\n"
		"                           query without flags, e.g. 'module mymod func rx_*'\n"
		"                           (repeatable: any of them); the others are off while\n"
		"                           klog runs, and every site's state is put back at\n"
		"                           the end (saved in /run/klog/sites.saved; after a\n"
		"                           kill, the next collection puts it back)\n"
		"      --sites [QUERY]      list the call sites, all or those QUERY selects (the\n"
		"                           words after --sites, e.g. --sites module mymod):\n"
		"                           id, state (on, off, gone), module, file:line,\n"
		"                           function, format\n"
		"  -f, --follow             also print the records on stdout as they come,\n"
		"                           merged by time (about 1 s behind); an output too\n"
		"                           slow for them costs lines (counted: \"N lines not\n"
		"                           shown\"), never records. With -r: follow DIR while\n"
		"                           another klog writes it, until it stops or Ctrl-C\n"
		"      --follow-output FILE -f's lines go to FILE (a terminal, FIFO or file;\n"
		"                           not a link), not stdout: e.g. when the COMMAND\n"
		"                           writes to the terminal\n"
		"      --color WHEN         colour the CPU, context and losses of the text lines\n"
		"                           of -r and -f: auto (default: on a terminal, and\n"
		"                           NO_COLOR unset), always or never\n"
		"      --no-pager           with -r on a terminal: no pager (default: $PAGER,\n"
		"                           less -R when unset; none when empty or cat)\n"
		"  -r, --report [DIR]       print the records saved in DIR/cpu* merged by time\n"
		"                           (default " KLOG_OUT_DIR ")\n"
		"      --cpu LIST           with -r, filters (all given must match): the CPU the\n"
		"                           call ran on, e.g. 0,2-3\n"
		"      --pid LIST           the pid, e.g. 1,200-300\n"
		"      --comm GLOB          the task name, an fnmatch(3) pattern; repeatable\n"
		"      --func GLOB          the function, an fnmatch(3) pattern; repeatable\n"
		"      --ctx LIST           the context: task, softirq, hardirq, nmi\n"
		"      --since SEC          records from this timestamp on, as printed\n"
		"                           (SEC.NSEC)\n"
		"      --until SEC          records up to this timestamp\n"
		"      --module GLOB        the call site's module (DIR/sites); repeatable\n"
		"      --file GLOB          the call site's source file; repeatable\n"
		"      --id LIST            the call site's id, e.g. 101,200-300\n"
		"      --kind LIST          the record's kind: text, args (binary arguments), raw\n"
		"      --grep REGEX         the text, formatted, before escaping: a POSIX\n"
		"                           extended regular expression; repeatable\n"
		"      --not                right before a filter: only records it does not\n"
		"                           match, e.g. --not --cpu 0 --not --func 'irq_*';\n"
		"                           loss lines are never filtered\n"
		"      --time abs|rel|delta|wall  with -r: times as recorded (default), since\n"
		"                           the first line, since the line before, or as\n"
		"                           wall-clock time (from DIR/meta's clock pairs)\n"
		"      --hex                with -r: a raw record's whole payload in hex (default:\n"
		"                           its first 64 bytes)\n"
		"      --stat               with -r: records and bytes per CPU, pid and call site,\n"
		"                           and the losses, instead of the records\n"
		"      --top N              with --stat: at most N rows per table\n"
		"      --sort records|bytes|name  with --stat: rows by records (default) or\n"
		"                           bytes, most first, or by name\n"
		"      --bytes              sizes in bytes in the status, the summary and --stat\n"
		"                           (default: 118B, 4K, 1.5M; K, M, G: 2^10, 2^20, 2^30)\n"
		"      --json               with -r: one JSON object per record or loss\n"
		"      --ctf OUT            with -r: write a CTF 1.8 trace into the new or empty\n"
		"                           directory OUT (for babeltrace2, Trace Compass)\n"
		"      --plot FILE          draw records per second over time, per CPU and for\n"
		"                           the top 5 sites, with the losses marked, as an SVG\n"
		"                           image into the new FILE: a report of DIR (right\n"
		"                           after FILE, or -r's; default " KLOG_OUT_DIR ")\n"
		"  -R, --recorder           create an overwrite-mode channel (a flight\n"
		"                           recorder), enable it and exit; klog_trigger()\n"
		"                           in the kernel freezes it\n"
		"  -s, --snapshot           copy the recorder's buffers, as of now, to DIR/cpuN;\n"
		"                           sub-buffers overwritten while being copied are\n"
		"                           skipped and counted. E.g.: klog -R -b 64k -n 64;\n"
		"                           ...; klog -s -o /tmp/snap && klog -r /tmp/snap\n"
		"      --status             print the channel's settings, state, trigger and\n"
		"                           counters\n"
		"      --thaw               thaw a flight recorder a trigger froze, and arm the\n"
		"                           trigger again\n"
		"      --stop               disable and destroy a flight recorder (not a\n"
		"                           collection's channel)\n"
		"      --wait SECONDS       with klog stop: wait at most SECONDS for the session\n"
		"                           to end (default 60)\n"
		"  -x, --replace            destroy a channel that exists (a flight recorder,\n"
		"                           or one a killed collector left) and create a new\n"
		"                           one, once the kernel accepted the new settings;\n"
		"                           without -x such a channel is never destroyed\n"
		"  -d, --debugfs DIR        control directory (default " KLOG_DEBUGFS ")\n"
		"  -q, --quiet              no status line (but --progress's) and no summary\n"
		"                           table; drops and errors (and the recording line)\n"
		"                           are still shown\n"
		"  -h, --help               this text\n"
		"\n"
		"Each record prints as:\n"
		"  [SECONDS.NANOSECONDS] cpuN COMM-PID task|softirq|hardirq|nmi FUNCTION:LINE: TEXT\n"
		"(the pid alone where the stream does not name the task)\n"
		"and a loss as \"[...] cpuN *** N records lost ***\".\n"
		"\n"
		"Example:\n"
		"  klog -b 1048576 -n 8 -o /tmp/out -t 10    # 10 s, 8 MiB per CPU\n"
		"  klog -r /tmp/out | less\n"
		"\n"
		"Exit status: 0 success, even if records were dropped (the summary says how\n"
		"many and why); 1 runtime error (control file, I/O, corrupt or inconsistent\n"
		"stream); 2 usage error. With a COMMAND, unless klog itself failed: the\n"
		"COMMAND's exit status (128+N if signal N killed it, also a Ctrl-C or SIGTERM\n"
		"klog passed on; 127 if it was not found), but 0 if klog ended it because -t,\n"
		"--max-size or the closed output of -f ended the collection. klog status: 0 a\n"
		"session runs, 3 none does (none started, it ended, or it was killed: the\n"
		"message says which). klog stop: 0 it stopped (or had ended) cleanly; 1 its\n"
		"collector failed, had been killed, or did not exit in time; 3 no session.\n";

	fputs(help, f);
}

/* --sites QUERY: the words after the options, joined by spaces. */
static const char *join_words(char *const *words)
{
	size_t len = 1;
	char *text;
	int i;

	for (i = 0; words && words[i]; i++)
		len += strlen(words[i]) + 1;
	text = calloc(1, len);
	if (!text) {
		ra_err("out of memory");
		exit(1);
	}
	for (i = 0; words && words[i]; i++) {
		if (i)
			strcat(text, " ");
		strcat(text, words[i]);
	}
	return text;
}

void parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		{ "follow",		no_argument,	   NULL, 'f' },
		{ "global",		no_argument,	   NULL, 'g' },
		{ "report",		optional_argument, NULL, 'r' },
		{ "recorder",		no_argument,	   NULL, 'R' },
		{ "snapshot",		no_argument,	   NULL, 's' },
		{ "json",		no_argument,	   NULL, OPT_JSON },
		{ "ctf",		required_argument, NULL, OPT_CTF },
		{ "cpu",		required_argument, NULL, OPT_CPU },
		{ "pid",		required_argument, NULL, OPT_PID },
		{ "comm",		required_argument, NULL, OPT_COMM },
		{ "func",		required_argument, NULL, OPT_FUNC },
		{ "ctx",		required_argument, NULL, OPT_CTX },
		{ "since",		required_argument, NULL, OPT_SINCE },
		{ "until",		required_argument, NULL, OPT_UNTIL },
		{ "time",		required_argument, NULL, OPT_TIME },
		{ "hex",		no_argument,	   NULL, OPT_HEX },
		{ "stat",		no_argument,	   NULL, OPT_STAT },
		{ "max-size",		required_argument, NULL, OPT_MAX_SIZE },
		{ "status",		no_argument,	   NULL, OPT_STATUS },
		{ "thaw",		no_argument,	   NULL, OPT_THAW },
		{ "stop",		no_argument,	   NULL, OPT_STOP },
		{ "enable",		required_argument, NULL, 'e' },
		{ "sites",		no_argument,	   NULL, OPT_SITES },
		{ "force",		no_argument,	   NULL, OPT_FORCE },
		{ "bytes",		no_argument,	   NULL, OPT_BYTES },
		{ "progress",		optional_argument, NULL, OPT_PROGRESS },
		/* report filters and --stat's rows (klog-filter.c) */
		{ "module",		required_argument, NULL, OPT_MODULE },
		{ "file",		required_argument, NULL, OPT_FILE },
		{ "id",			required_argument, NULL, OPT_ID },
		{ "kind",		required_argument, NULL, OPT_KIND },
		{ "grep",		required_argument, NULL, OPT_GREP },
		{ "not",		no_argument,	   NULL, OPT_NOT },
		{ "top",		required_argument, NULL, OPT_TOP },
		{ "sort",		required_argument, NULL, OPT_SORT },
		{ "plot",		required_argument, NULL, OPT_PLOT },
		{ "color",		required_argument, NULL, OPT_COLOR },
		{ "no-pager",		no_argument,	   NULL, OPT_NO_PAGER },
		{ "follow-output",	required_argument, NULL, OPT_FOLLOW_OUT },
		{ NULL, 0, NULL, 0 }
	};
	static const char *const sort_keys[] = {
		[SORT_RECORDS] = "records", [SORT_BYTES] = "bytes",
		[SORT_NAME] = "name", NULL
	};
	/* the options that only set a flag */
	const struct { int opt; bool *flag; } flags[] = {
		{ 'f', &o->follow }, { 'g', &o->global },
		{ 'R', &o->recorder }, { 's', &o->snapshot },
		{ OPT_SITES, &o->sites }, { OPT_BYTES, &o->bytes },
		{ OPT_FORCE, &o->force }, { OPT_JSON, &o->json },
		{ OPT_HEX, &o->hex }, { OPT_STAT, &o->stat },
	};
	const char *collect_opt = NULL, *report_opt = NULL, *stat_opt = NULL;
	bool other_opt = false;		/* not -d */
	bool sites_other_opt = false;	/* not -d, not --sites */
	char *end;
	int c, i;

	*o = (struct opts) { 0 };
	o->ra = (struct ra_opts) {
		.subbuf_size = KLOG_SUBBUF_SIZE, .n_subbufs = KLOG_N_SUBBUFS,
		.mode = RA_MODE_READ, .out = KLOG_OUT_DIR,
		.debugfs = KLOG_DEBUGFS, .help = print_help,
	};
	while ((c = ra_getopt(argc, argv, "fgr::Rse:", longopts, &o->ra)) != -1) {
		for (i = 0; i < (int)ARRAY_SIZE(flags); i++)
			if (c == flags[i].opt)
				*flags[i].flag = true;
		switch (c) {
		case OPT_PLOT:	/* klog --plot FILE [DIR]: -r [DIR] --plot FILE */
		case 'r':
			if (c == OPT_PLOT) {
				o->plot = optarg;
				optarg = NULL;
				if (o->report)
					break;
			}
			/* -rDIR, --report=DIR, -r DIR; -r alone: KLOG_OUT_DIR */
			o->report = optarg;
			if (!optarg && optind < argc && argv[optind][0] != '-')
				o->report = argv[optind++];
			o->report_default = !o->report;
			if (!o->report)
				o->report = KLOG_OUT_DIR;
			break;
		case 'e':
			if (o->n_enable == KLOG_MAX_ENABLE)
				usage_error("-e: at most %d queries", KLOG_MAX_ENABLE);
			sitectl_check_query("-e", optarg);
			o->enable[o->n_enable++] = optarg;
			break;
		case OPT_PROGRESS:
			/* "--progress 5" would run a COMMAND named 5 */
			if (!optarg && optind < argc &&
			    strtod(argv[optind], &end) >= 0 &&
			    end != argv[optind] && !*end)
				usage_error("--progress=%s, not --progress %s (or: -- COMMAND)",
					    argv[optind], argv[optind]);
			o->progress = optarg ? parse_seconds("--progress", optarg) :
				      KLOG_PROGRESS_S;
			break;
		case OPT_CTF:
			o->ctf = optarg;
			break;
		case OPT_STATUS:
		case OPT_THAW:
		case OPT_STOP:
			if (o->recorder_cmd && o->recorder_cmd != c)
				usage_error("--status, --thaw and --stop: one at a time");
			o->recorder_cmd = c;
			break;
		case OPT_MAX_SIZE:
			o->max_size = parse_count("--max-size", optarg, "kKmMgG",
						  1, 1ULL << 50,
						  "bytes, 1 to 2^50, with an optional k, M or G suffix");
			break;
		case OPT_COLOR:
		case OPT_NO_PAGER:
		case OPT_FOLLOW_OUT:
			tty_option(o, c, optarg);
			break;
		case OPT_CPU:
		case OPT_PID:
		case OPT_COMM:
		case OPT_FUNC:
		case OPT_CTX:
		case OPT_SINCE:
		case OPT_UNTIL:
		case OPT_TIME:
		case OPT_MODULE:
		case OPT_FILE:
		case OPT_ID:
		case OPT_KIND:
		case OPT_GREP:
		case OPT_NOT:
			report_opt = filter_option(&o->filter, c, optarg);
			break;
		case OPT_TOP:
			o->stat_top = parse_count("--top", optarg, NULL, 1, 1000000000,
						  "rows per table, 1 to 1000000000");
			stat_opt = "--top";
			break;
		case OPT_SORT:
			o->stat_sort = parse_choice("--sort", optarg, sort_keys);
			stat_opt = "--sort";
			break;
		default:	/* a flag (above), or a common option (in o->ra) */
			break;
		}
		if (o->filter.not_next && c != OPT_NOT)
			usage_error("--not goes right before %s, not %s",
				    "a filter of values (--cpu, --pid, --comm, --func, --module, --file, --id, --ctx, --kind, --grep)",
				    ra_opt_name(c));
		/* the first of a collection's options, named in an error */
		if (((c > 0 && c < 256 && strchr("bnmotgdxe", c)) ||
		     c == OPT_PROGRESS || c == OPT_MAX_SIZE) && !collect_opt)
			collect_opt = ra_opt_name(c);
		if (c != 'd' && (c < OPT_STATUS || c > OPT_STOP))
			other_opt = true;
		if (c != 'd' && c != OPT_SITES)
			sites_other_opt = true;
	}
	if (o->filter.not_next)
		usage_error("--not at the end: it goes right before a filter (--not --cpu 0)");
	if (o->force && !o->plot && !collect_opt)
		collect_opt = "--force";	/* a collection's, or --plot's */
	o->cmd = ra_command_arg(argc, argv);
	if (o->sites) {
		if (sites_other_opt)
			usage_error("--sites takes a QUERY and no option but -d");
		o->sites_query = join_words(o->cmd);
		sitectl_check_query("--sites", o->sites_query);
		return;
	}
	if (o->cmd && o->report_default && o->plot)
		usage_error("unexpected argument '%s' (DIR goes after FILE: --plot %s %s)",
			    o->cmd[0], o->plot, o->cmd[0]);
	if (o->cmd && o->report_default)
		usage_error("unexpected argument '%s' (-r's DIR goes right after it: -r %s)",
			    o->cmd[0], o->cmd[0]);
	if (o->cmd && (o->report || o->recorder || o->snapshot))
		usage_error("unexpected argument '%s' (only a collection runs a COMMAND)",
			    o->cmd[0]);
	if (o->report && collect_opt)
		usage_error("-r/--report prints a saved collection; it cannot be combined with %s",
			    collect_opt);
	if (o->plot)
		report_opt = "--plot";
	else if (o->json)
		report_opt = "--json";
	else if (o->ctf)
		report_opt = "--ctf";
	else if (o->stat)
		report_opt = "--stat";
	else if (o->hex && !report_opt)
		report_opt = "--hex";
	if (stat_opt && !o->stat)
		usage_error("%s is an option of --stat: give -r DIR --stat", stat_opt);
	if (report_opt && !o->report)
		usage_error("%s is an option of -r/--report: give -r DIR", report_opt);
	if (o->json + !!o->ctf + o->stat + !!o->plot > 1)
		usage_error("--json, --ctf, --stat, --plot: different outputs, one at a time");
	if ((o->json || o->ctf || o->stat || o->plot) &&
	    (o->hex || o->filter.time != TIME_ABS))
		usage_error("--hex and --time are for the text report, not %s",
			    report_opt);
	if (o->recorder && o->snapshot)
		usage_error("-R/--recorder starts a recorder, -s/--snapshot reads one: not both");
	if (o->recorder_cmd && (other_opt || o->cmd))
		usage_error("--status, --thaw and --stop take no other option but -d");
	if (o->bytes && (o->report ? !o->stat : o->recorder || o->snapshot))
		usage_error("--bytes: exact sizes in a collection's summary and -r's --stat%s",
			    o->report ? ": give --stat" : ", not with -R or -s");
	if (o->recorder && o->force)
		usage_error("--force is for a collection's or a snapshot's DIR: -R writes none");
	if ((o->recorder || o->snapshot) && o->max_size)
		usage_error("--max-size limits a collection: not with -R or -s");
	if ((o->recorder || o->snapshot) && o->progress)
		usage_error("--progress shows a collection's progress: not with -R or -s");
	if ((o->recorder || o->snapshot) && (o->report || o->follow || o->ra.duration))
		usage_error("-R/--recorder and -s/--snapshot take no -r, -f or -t");
	if (o->snapshot && o->ra.replace)
		usage_error("-s/--snapshot reads the recorder; it takes no -x/--replace");
	if (o->n_enable && (o->recorder || o->snapshot))
		usage_error("-e/--enable selects the sites of a collection: not with -R or -s");
	tty_check(o);
}
