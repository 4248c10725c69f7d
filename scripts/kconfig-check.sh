#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kconfig-check.sh .config FRAGMENT...: fail when an option requested by a
# fragment is not what the final .config has (a missing dependency makes
# Kconfig drop requests silently; we want to hear about it).
set -euo pipefail
cfg=$1; shift
bad=0
while IFS= read -r line; do
	case "$line" in
	CONFIG_*=n) opt=${line%%=*}
		if grep -q "^$opt=" "$cfg"; then echo "kconfig: $opt requested off, got $(grep "^$opt=" "$cfg")" >&2; bad=1; fi ;;
	CONFIG_*=*) if ! grep -qxF "$line" "$cfg"; then
			echo "kconfig: requested $line, got $(grep "^${line%%=*}=" "$cfg" || echo 'unset')" >&2; bad=1; fi ;;
	esac
done < <(cat "$@")
exit $bad
