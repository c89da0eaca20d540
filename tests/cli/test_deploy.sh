# SPDX-License-Identifier: LGPL-2.1-or-later
# test_deploy: the fleet's files are what docs/containers.md says. The
# Kubernetes manifests parse as YAML (Debian's python3-yaml), hold a
# ConfigMap whose configuration rdtctl applies (checked with --dry-run) and
# a DaemonSet that is privileged, in the host's PID namespace, mounts
# /sys/fs/resctrl, /sys/fs/bpf, /sys/fs/cgroup, the host's default state
# directory (/run/rdtalloc, which the OCI hooks and the units use) and the
# ConfigMap, and runs rdtalloc-agent with the ConfigMap's file, metrics on
# the pod's address and /healthz as its readiness probe. The Dockerfile
# builds from this tree with the project's own deps.sh.
. "$(dirname "$0")/lib.sh"

SRC=$(cd "$(dirname "$0")/../.." && pwd)
PY=/usr/bin/python3
"$PY" -c 'import yaml' 2>/dev/null || skip "no python3-yaml (scripts/deps.sh installs it)"

"$PY" - "$SRC/deploy/kubernetes/rdtalloc.yaml" "$TMP" >"$TMP/check" 2>&1 <<'PY'
import sys, yaml
path, tmp = sys.argv[1:]
docs = [d for d in yaml.safe_load_all(open(path)) if d]
kinds = sorted(d["kind"] for d in docs)
assert kinds == ["ConfigMap", "DaemonSet"], kinds
cm = next(d for d in docs if d["kind"] == "ConfigMap")
ds = next(d for d in docs if d["kind"] == "DaemonSet")
assert ds["apiVersion"] == "apps/v1" and cm["apiVersion"] == "v1"
spec = ds["spec"]
assert spec["selector"]["matchLabels"] == spec["template"]["metadata"]["labels"]
pod = spec["template"]["spec"]
assert pod["hostPID"] is True
(c,) = pod["containers"]
assert c["securityContext"]["privileged"] is True
mounts = {m["name"]: m["mountPath"] for m in c["volumeMounts"]}
vols = {v["name"]: v for v in pod["volumes"]}
for name, where in (("resctrl", "/sys/fs/resctrl"), ("bpf", "/sys/fs/bpf"),
                    ("cgroup", "/sys/fs/cgroup")):
    assert mounts[name] == where and vols[name]["hostPath"]["path"] == where, name
assert vols["config"]["configMap"]["name"] == cm["metadata"]["name"]
assert mounts["config"] == "/etc/rdtalloc"
# one state for the host: the default one, the hooks' and the units' (no RDTALLOC_STATE_DIR)
assert not any(e["name"] == "RDTALLOC_STATE_DIR" for e in c["env"]), c["env"]
assert mounts["state"] == "/run/rdtalloc" == vols["state"]["hostPath"]["path"]
assert "--state-dir" not in c["args"]
# the agent, given the ConfigMap's file, metrics on the pod's address, ready by /healthz
assert c["command"] == ["rdtalloc-agent"], c["command"]
args = c["args"]
assert args[args.index("--config") + 1] == "/etc/rdtalloc/rdtalloc.conf"
assert args[args.index("--listen") + 1] == "$(POD_IP):9431"
assert any(e["name"] == "POD_IP" and e["valueFrom"]["fieldRef"]["fieldPath"] == "status.podIP"
           for e in c["env"])
assert c["readinessProbe"]["httpGet"]["path"] == "/healthz"
open(tmp + "/args", "w").write(" ".join(a for a in args if "POD_IP" not in a))
open(tmp + "/rdtalloc.conf", "w").write(cm["data"]["rdtalloc.conf"])
print("ok")
PY
if [ "$(cat "$TMP/check")" = ok ]; then pass; else fail "the manifests: $(cat "$TMP/check")"; fi
# the agent takes the DaemonSet's options (its --help parses them; --listen given apart)
if [ -n "${RDTALLOC_AGENT:-}" ] && [ -x "$RDTALLOC_AGENT" ]; then
	# shellcheck disable=SC2046
	if "$RDTALLOC_AGENT" $(sed 's/--listen//' "$TMP/args") --help >/dev/null; then pass; else
		fail "rdtalloc-agent refuses the DaemonSet's arguments: $(cat "$TMP/args")"; fi
fi
run apply --dry-run "$TMP/rdtalloc.conf"
expect_rc 0 "the ConfigMap's configuration applies"
expect_out_contains "it makes db and batch" "group db"
if grep -q 'scripts/deps.sh' "$SRC/deploy/Dockerfile" &&
   grep -q 'cmake --install' "$SRC/deploy/Dockerfile"; then pass; else
	fail "the Dockerfile does not build with deps.sh and install"; fi

finish
