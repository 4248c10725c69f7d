#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kconfig-check.sh .config FRAGMENT...: fail when an option requested by a
# fragment is not what the final .config has (a missing dependency makes
# Kconfig drop requests silently; we want to hear about it). As with
# merge_config.sh, a later fragment's request overrides an earlier one.
set -euo pipefail
cfg=$1; shift
declare -A want
while IFS= read -r line; do
	case "$line" in CONFIG_*=*) want[${line%%=*}]=${line#*=} ;; esac
done < <(cat "$@")
bad=0
for opt in "${!want[@]}"; do
	val=${want[$opt]}
	if [ "$val" = n ]; then
		if grep -q "^$opt=" "$cfg"; then echo "kconfig: $opt requested off, got $(grep "^$opt=" "$cfg")" >&2; bad=1; fi
	elif ! grep -qxF "$opt=$val" "$cfg"; then
		echo "kconfig: requested $opt=$val, got $(grep "^$opt=" "$cfg" || echo 'unset')" >&2; bad=1
	fi
done
exit $bad
