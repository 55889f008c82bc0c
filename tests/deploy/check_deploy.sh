#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Checks deploy/: Prometheus config and rules (promtool check, and the rules'
# unit tests), the Grafana dashboard (valid JSON with the expected variables,
# generated from make_dashboard.py unchanged, every expression valid PromQL,
# every metric it names a family of docs/observability.md), the example server
# configs (vkserve parses them, when the binary is there), the KServe
# config in the KServe ConfigMap, the systemd units (systemd-analyze verify)
# and the sysusers.d file. Fails without promtool.
# Usage: tests/deploy/check_deploy.sh [REPO_ROOT] [VKSERVE_BINARY]
set -euo pipefail
ROOT=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
VKSERVE=${2:-$ROOT/build/vkserve}
PY=/usr/bin/python3
cd "$ROOT"
fail() { echo "FAIL: $*" >&2; exit 1; }

if ! command -v promtool >/dev/null; then
  echo "promtool (Debian's prometheus package) is missing; scripts/setup.sh installs it" >&2; exit 1
fi
promtool check config deploy/prometheus/prometheus.yml
promtool check rules deploy/prometheus/vkserve-rules.yml
(cd deploy/prometheus && promtool test rules vkserve-rules.test.yml)

tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# The dashboard: valid JSON, its variables, every panel on the datasource variable.
$PY - deploy/grafana/vkserve.json <<'PYEOF'
import json, sys
d = json.load(open(sys.argv[1]))
variables = {v["name"]: v for v in d["templating"]["list"]}
assert variables["datasource"]["type"] == "datasource", "datasource variable"
assert variables["datasource"]["query"] == "prometheus", "datasource variable's plugin"
assert variables["model"]["definition"] == "label_values(vkserve_requests_total, model)", "model variable"
assert "version" in variables, "version variable"
assert d["schemaVersion"] >= 36, d["schemaVersion"]
for p in d["panels"]:
    assert p["datasource"]["uid"] == "${datasource}", f"panel {p['title']}: datasource"
    assert p["targets"], f"panel {p['title']}: no query"
    for t in p["targets"]:
        assert t["datasource"]["uid"] == "${datasource}", f"panel {p['title']}: target datasource"
print(f"{sys.argv[1]}: valid JSON, {len(d['panels'])} panels")
PYEOF
# The committed JSON is what the generator writes.
cp -r deploy/grafana "$tmp/grafana"
$PY "$tmp/grafana/make_dashboard.py" >/dev/null
cmp -s "$tmp/grafana/vkserve.json" deploy/grafana/vkserve.json ||
  fail "deploy/grafana/vkserve.json differs from what make_dashboard.py writes; rerun it"
# Every metric a panel or rule names is a family docs/observability.md lists.
$PY - "$ROOT" "$tmp/dashboard-rules.yml" <<'PYEOF'
import json, re, subprocess, sys
root = sys.argv[1]
doc = open(f"{root}/docs/observability.md").read()
families = set(re.findall(r"^\| `(vkserve_[a-z_]+)`", doc, re.M))
assert len(families) >= 10, families
exprs = json.loads(subprocess.run([sys.executable, f"{root}/tests/deploy/dashboard_exprs.py",
                                   f"{root}/deploy/grafana/vkserve.json", "m", "1"],
                                  check=True, capture_output=True, text=True).stdout)
rules = open(f"{root}/deploy/prometheus/vkserve-rules.yml").read()
names = set()
for text in exprs + [rules]:
    # Recording-rule names (level:metric:operations) are not families.
    text = re.sub(r"\b[a-z_]+:vkserve_[a-z_]+:[a-z0-9_]+", "", text)
    for name in re.findall(r"\bvkserve_[a-z_]+", text):
        names.add(re.sub(r"_(bucket|sum|count)$", "", name))
unknown = sorted(n for n in names if n not in families)
if unknown:
    sys.exit(f"FAIL: metrics not in docs/observability.md: {unknown}")
print(f"dashboard: {len(exprs)} expressions, {len(names)} metric families, all documented")
# Each expression as a recording rule, for promtool to parse below.
with open(sys.argv[2], "w") as f:
    f.write("groups:\n  - name: dashboard\n    rules:\n")
    for i, e in enumerate(exprs):
        f.write(f"      - record: dashboard_expr_{i}\n        expr: {json.dumps(e)}\n")
PYEOF
promtool check rules "$tmp/dashboard-rules.yml" >/dev/null ||
  fail "a dashboard expression is not valid PromQL (promtool check rules $tmp/dashboard-rules.yml)"
echo "dashboard: every expression parses (promtool)"

# The example server config parses (paths need not exist for this check:
# the parser only refuses a repository path that is not a directory).
if [ -x "$VKSERVE" ]; then
  sed 's#/var/lib/vkserve/models#'"$tmp"'#; s#/var/lib/vkserve/traces#'"$tmp"'/traces#' \
    deploy/systemd/server.pbtxt > "$tmp/server.pbtxt"
  "$VKSERVE" serve --config "$tmp/server.pbtxt" --check-config ||
    fail "deploy/systemd/server.pbtxt does not parse"
  sed 's#/mnt/models#'"$tmp"'#' deploy/kserve/server.pbtxt > "$tmp/kserve.pbtxt"
  "$VKSERVE" serve --config "$tmp/kserve.pbtxt" --check-config ||
    fail "deploy/kserve/server.pbtxt does not parse"
else
  echo "server configs: $VKSERVE not built, --check-config skipped"
fi

# The ConfigMap carries deploy/kserve/server.pbtxt verbatim.
sed -n '/server.pbtxt: |/,$p' deploy/kserve/configmap.yaml | tail -n +2 | sed 's/^    //' > "$tmp/cm.pbtxt"
cmp -s "$tmp/cm.pbtxt" deploy/kserve/server.pbtxt ||
  fail "deploy/kserve/configmap.yaml does not hold deploy/kserve/server.pbtxt"

# KServe manifests: tests/deploy/check_kserve.py (CTest deploy_kserve_test)
# validates them against the CRD schemas.

# The systemd units: systemd-analyze verify with ExecStart pointing at the
# built binary (the units name /usr/bin/vkserve, where the package puts it),
# so that any message is a real problem.
command -v systemd-analyze >/dev/null || fail "systemd-analyze (Debian's systemd package) is not installed"
[ -x "$VKSERVE" ] || fail "$VKSERVE is not built"
mkdir -p "$tmp/units"
for unit in vkserve.service vkserve@.service; do
  sed "s#/usr/bin/vkserve#$(readlink -f "$VKSERVE")#" "deploy/systemd/$unit" >"$tmp/units/$unit"
done
out=$(cd "$tmp/units" && systemd-analyze verify vkserve.service vkserve@0.service 2>&1) ||
  fail "systemd-analyze verify: $out"
[ -z "$out" ] || fail "systemd-analyze verify: $out"
# Type=notify with the watchdog and reload; the template differs from the
# service only where the instance matters.
for line in Type=notify NotifyAccess=main "ExecReload=/bin/kill -HUP \$MAINPID" WatchdogSec= User=vkserve; do
  grep -q "^$line" deploy/systemd/vkserve.service || fail "vkserve.service lacks $line"
done
diff <(grep -v '^#' deploy/systemd/vkserve.service | grep .) \
     <(grep -v '^#' deploy/systemd/vkserve@.service | grep . | sed 's/ on GPU %i//; s# --instance %i##; s#/%i##g' | grep -v '^DefaultInstance=') ||
  fail "vkserve@.service differs from vkserve.service beyond the instance"
# The sysusers.d file parses and creates the user with the unit's groups.
mkdir -p "$tmp/sysroot/etc"
systemd-sysusers --root="$tmp/sysroot" "$ROOT/deploy/systemd/vkserve.sysusers" >/dev/null 2>&1 ||
  fail "systemd-sysusers rejects deploy/systemd/vkserve.sysusers"
grep -q "^vkserve:" "$tmp/sysroot/etc/passwd" || fail "vkserve.sysusers creates no vkserve user"
echo "deploy/systemd: both units verify (systemd-analyze), the template matches the service, sysusers ok"
echo "deploy: all checks passed"
